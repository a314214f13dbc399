//! Reading the files the runner is given (case files, baselines, the
//! spec-map, results of runs): regular files only, each within a stated
//! size, so that no path can block the runner (a FIFO, a socket) or make it
//! read without end (`/dev/zero`); and names for people that cannot split
//! or reorder a line of output.
//!
//! A FIFO or a device is refused by its type before it is opened (opening a
//! FIFO for reading blocks until a writer comes), and the file is opened
//! without blocking and checked again once open, so a path swapped in
//! between is refused too. A file's size is checked before it is read
//! whole, and the read stops one byte past the limit whatever the size
//! said.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest case file (a generated corpus file holds one case; the
/// largest hand-written file is under 1 MiB).
pub const MAX_CASE_FILE: u64 = 16 << 20;
/// The largest baseline, spec-map file or source document.
pub const MAX_DATA_FILE: u64 = 16 << 20;
/// The largest `--report` file read back (`report --results`): a run of
/// the whole suite writes about 1 MiB.
pub const MAX_RESULTS_FILE: u64 = 256 << 20;

/// What a path turned out to be when it is not a regular file.
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    "not a regular file"
}

/// `s` with `limit` bytes written for people: `16 MiB`.
pub fn size(limit: u64) -> String {
    match limit {
        l if l >= 1 << 20 && l % (1 << 20) == 0 => format!("{} MiB", l >> 20),
        l if l >= 1 << 10 && l % (1 << 10) == 0 => format!("{} KiB", l >> 10),
        l => format!("{l} bytes"),
    }
}

/// Why a regular file could not be read whole (without the path: callers
/// say where).
pub fn check_regular(path: &Path) -> Result<std::fs::Metadata, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if meta.is_file() {
        Ok(meta)
    } else {
        Err(format!("{}; expected a regular file", kind_of(&meta)))
    }
}

/// Opens a regular file for reading without blocking on it.
fn open(path: &Path) -> Result<File, String> {
    check_regular(path)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| format!("cannot read: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{}; expected a regular file", kind_of(&meta)));
    }
    Ok(file)
}

/// The bytes of a regular file of at most `limit` bytes.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let file = open(path)?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let too_big = |n: u64| {
        format!(
            "{n} bytes; a file read here holds at most {} ({limit} bytes)",
            size(limit)
        )
    };
    if len > limit {
        return Err(too_big(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The text of a regular UTF-8 file of at most `limit` bytes.
pub fn read_text(path: &Path, limit: u64) -> Result<String, String> {
    String::from_utf8(read_bytes(path, limit)?).map_err(|e| {
        format!(
            "not UTF-8 (at byte {}); expected a UTF-8 text",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Whether a character would change how a line of output reads: a control
/// character (a newline splits a line, an escape recolours it) or a
/// bidirectional formatting character (which reorders what follows it).
pub fn is_unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A name as it can be printed: unprintable characters escaped
/// (`a\u{a}b`), bytes that are not UTF-8 as `\xNN`.
pub fn escaped(name: &std::ffi::OsStr) -> String {
    let bytes = name.as_encoded_bytes();
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_unprintable(c) || c == '\\' {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// A name that prints as it is: UTF-8, without unprintable characters.
pub fn printable(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .is_some_and(|s| !s.chars().any(is_unprintable))
}

/// A path as it can be printed (each component escaped).
pub fn display(path: &Path) -> PathBuf {
    if printable(path.as_os_str()) {
        return path.to_path_buf();
    }
    PathBuf::from(escaped(path.as_os_str()))
}

/// Whether two paths name the same file: the same file system object
/// where both exist, else the same absolute path.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    absolute(a) == absolute(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ser-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn devices_folders_and_fifos_are_refused_without_reading() {
        let e = read_text(Path::new("/dev/zero"), 10).unwrap_err();
        assert_eq!(e, "a character device; expected a regular file");
        let d = scratch("kinds");
        let e = read_text(&d, 10).unwrap_err();
        assert_eq!(e, "a folder; expected a regular file");
        #[cfg(unix)]
        {
            let fifo = d.join("fifo");
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .is_ok_and(|s| s.success());
            if made {
                assert_eq!(
                    read_text(&fifo, 10).unwrap_err(),
                    "a FIFO; expected a regular file"
                );
            }
        }
    }

    #[test]
    fn a_file_over_its_limit_is_refused_with_both_sizes() {
        let d = scratch("limit");
        let f = d.join("f");
        std::fs::write(&f, "x".repeat(2048)).unwrap();
        assert_eq!(read_text(&f, 2048).unwrap().len(), 2048);
        let e = read_text(&f, 1024).unwrap_err();
        assert_eq!(
            e,
            "2048 bytes; a file read here holds at most 1 KiB (1024 bytes)"
        );
        std::fs::write(&f, [0xff, 0xfe]).unwrap();
        assert!(read_text(&f, 10).unwrap_err().starts_with("not UTF-8"));
    }

    #[test]
    fn unprintable_names_are_escaped() {
        assert!(printable(OsStr::new("hit_object-1.json")));
        for bad in ["a\nb", "a\u{202e}b", "\u{1b}[2J", "a\u{2066}"] {
            assert!(!printable(OsStr::new(bad)), "{bad:?}");
            let e = escaped(OsStr::new(bad));
            assert!(!e.chars().any(is_unprintable), "{e}");
        }
        assert_eq!(escaped(OsStr::new("a\nb")), "a\\nb");
        assert_eq!(escaped(OsStr::new("a\u{202e}b")), "a\\u{202e}b");
    }

    #[test]
    fn same_file_sees_through_spellings() {
        let d = scratch("same");
        let f = d.join("f");
        std::fs::write(&f, "").unwrap();
        assert!(same_file(&f, &d.join("./f")));
        assert!(same_file(&d.join("new"), &d.join("./new")));
        assert!(!same_file(&f, &d.join("g")));
    }
}
