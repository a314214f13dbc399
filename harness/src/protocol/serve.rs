//! The backend side: serves any [`Backend`] over the protocol on stdin and
//! stdout. `ser-conformance serve` serves the reference this way, so that
//! the suite can run it through `--backend exec:` like any other program.
//!
//! For testing runners and CI setups, faults can be injected on chosen
//! cases: `hang`, `crash`, `garbage` (a line that is not JSON), `wrong_id`
//! (a reply for another case), `decline` (`not_supported`), `twice` (the
//! reply written twice), `late` (the reply written again a moment later),
//! `binary` (bytes that are no text, without a newline, in place of the
//! reply) and `orphan` (a child process that holds stdout open is left
//! behind, and the backend exits).

use super::codec::{decode, encode};
use super::convert::{case_of, reply};
use super::wire::{
    BackendHello, BatchHeader, ErrorReply, HelloType, NotSupportedReply, Reply, Request,
    RunnerHello,
};
use super::PROTOCOL_VERSION;
use crate::backend::Backend;
use ser_reference::Profile;
use std::io::{BufRead, Write};
use std::str::FromStr;

/// A misbehaviour to show on cases whose id contains a given text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Never answer.
    Hang,
    /// Abort the process.
    Crash,
    /// Write a line that is not a message.
    Garbage,
    /// Answer with another case's id.
    WrongId,
    /// Answer `not_supported`.
    Decline,
    /// Answer twice at once.
    Twice,
    /// Answer, then answer again after a moment.
    Late,
    /// Write bytes that are not text, without a newline.
    Binary,
    /// Leave a child holding stdout open, and exit.
    Orphan,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    /// Cases whose id contains this text.
    pub id_contains: String,
}

impl FromStr for Fault {
    type Err = String;

    /// `KIND=TEXT`, e.g. `hang=hit_object/nop/`.
    fn from_str(s: &str) -> Result<Fault, String> {
        let (kind, text) = s
            .split_once('=')
            .ok_or_else(|| format!("`{s}`: expected KIND=TEXT"))?;
        let kind = match kind {
            "hang" => FaultKind::Hang,
            "crash" => FaultKind::Crash,
            "garbage" => FaultKind::Garbage,
            "wrong_id" => FaultKind::WrongId,
            "decline" => FaultKind::Decline,
            "twice" => FaultKind::Twice,
            "late" => FaultKind::Late,
            "binary" => FaultKind::Binary,
            "orphan" => FaultKind::Orphan,
            other => {
                return Err(format!(
                    "`{other}`: unknown fault; expected hang, crash, garbage, wrong_id, decline, twice, late, binary or orphan"
                ))
            }
        };
        Ok(Fault {
            kind,
            id_contains: text.to_string(),
        })
    }
}

fn send(out: &mut impl Write, line: &str) -> std::io::Result<()> {
    writeln!(out, "{line}")?;
    out.flush()
}

/// What the backend writes for a request.
enum Say {
    Line(String),
    /// Bytes as they are (the `binary` fault).
    Raw(&'static [u8]),
    /// A pause (the `late` fault).
    Pause(std::time::Duration),
}

fn say(out: &mut impl Write, what: &Say) -> std::io::Result<()> {
    match what {
        Say::Line(l) => send(out, l),
        Say::Raw(b) => out.write_all(b).and_then(|()| out.flush()),
        Say::Pause(d) => {
            std::thread::sleep(*d);
            Ok(())
        }
    }
}

/// Serves requests until stdin closes. `make` builds the backend once the
/// runner's hello has said which profile it wants.
pub fn serve(
    make: impl FnOnce(Option<Profile>) -> Box<dyn Backend>,
    input: impl BufRead,
    mut out: impl Write,
    faults: &[Fault],
) -> Result<(), String> {
    let mut lines = input.lines();
    // A backend built on `serve` takes batches: `Backend::run_batch` runs
    // them (one by one, unless the backend shares work).
    let first = match lines.next() {
        Some(l) => l.map_err(|e| format!("cannot read the runner's hello: {e}"))?,
        None => return Ok(()),
    };
    let hello: RunnerHello = decode("the runner's hello", &first).map_err(|e| e.to_string())?;
    let backend = make(hello.profile);
    let mine = BackendHello {
        kind: HelloType::Hello,
        protocol: PROTOCOL_VERSION,
        name: backend.name().to_string(),
        profile: backend.profile(),
        capabilities: backend.capabilities(),
        wave_sizes: backend.wave_sizes(),
        phase: backend.phase(),
        batch: true,
    };
    send(&mut out, &encode(&mine)).map_err(|e| e.to_string())?;
    if hello.protocol != PROTOCOL_VERSION {
        return Err(format!(
            "the runner speaks protocol {}, this backend {PROTOCOL_VERSION}",
            hello.protocol
        ));
    }
    while let Some(line) = lines.next() {
        let line = line.map_err(|e| format!("cannot read a request: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        // A header is a short line of its own type; requests are long.
        let header = (line.len() < 256 && line.contains("\"batch\""))
            .then(|| decode::<BatchHeader>("a batch header", &line));
        let answers = match header {
            Some(Err(e)) => vec![Say::Line(encode(&Reply::Error(ErrorReply {
                id: String::new(),
                message: e.to_string(),
            })))],
            Some(Ok(header)) => {
                let mut batch = Vec::with_capacity(header.count as usize);
                while batch.len() < header.count as usize {
                    match lines.next() {
                        Some(l) => {
                            let l = l.map_err(|e| format!("cannot read a request: {e}"))?;
                            if !l.trim().is_empty() {
                                batch.push(l);
                            }
                        }
                        None => return Ok(()),
                    }
                }
                answer_batch(backend.as_ref(), &batch, faults)
            }
            None => answer_batch(backend.as_ref(), &[line], faults),
        };
        for a in &answers {
            say(&mut out, a).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// The lines that answer `requests`, in order: injected faults act as they
/// come, the cases that decode run as one batch.
fn answer_batch(backend: &dyn Backend, requests: &[String], faults: &[Fault]) -> Vec<Say> {
    let mut answers: Vec<Option<Say>> = Vec::with_capacity(requests.len());
    // Faults that act after the reply: where, and which.
    let mut after: Vec<(usize, FaultKind)> = Vec::new();
    let (mut cases, mut at, mut ids) = (Vec::new(), Vec::new(), Vec::new());
    for line in requests {
        let reply = match decode::<Request>("a request", line) {
            Err(e) => Reply::Error(ErrorReply {
                id: String::new(),
                message: e.to_string(),
            }),
            Ok(request) => {
                let fault = faults
                    .iter()
                    .find(|f| request.id.contains(&f.id_contains))
                    .map(|f| f.kind);
                match fault {
                    Some(FaultKind::Hang) => hang(),
                    Some(FaultKind::Crash) => {
                        eprintln!("injected crash on `{}`", request.id);
                        std::process::abort()
                    }
                    Some(FaultKind::Garbage) => {
                        answers.push(Some(Say::Line("\u{7}this is not a message {".into())));
                        continue;
                    }
                    Some(FaultKind::Binary) => {
                        answers.push(Some(Say::Raw(b"\x00\x01\xfe\xff binary")));
                        continue;
                    }
                    Some(FaultKind::Orphan) => {
                        // The child inherits stdout and outlives the backend.
                        let _ = std::process::Command::new("sleep").arg("3600").spawn();
                        std::process::exit(3)
                    }
                    Some(FaultKind::WrongId) => Reply::NotSupported(NotSupportedReply {
                        id: format!("{}-but-another", request.id),
                        reason: "injected wrong id".into(),
                    }),
                    Some(FaultKind::Decline) => Reply::NotSupported(NotSupportedReply {
                        id: request.id.clone(),
                        reason: "injected decline".into(),
                    }),
                    Some(FaultKind::Twice | FaultKind::Late) | None => match case_of(&request) {
                        Ok(case) => {
                            if let Some(kind) = fault {
                                after.push((answers.len(), kind));
                            }
                            cases.push(case);
                            at.push(answers.len());
                            ids.push(request.id);
                            answers.push(None);
                            continue;
                        }
                        Err(message) => Reply::Error(ErrorReply {
                            id: request.id.clone(),
                            message: format!("a bad request: {message}"),
                        }),
                    },
                }
            }
        };
        answers.push(Some(Say::Line(encode(&reply))));
    }
    let refs: Vec<&crate::load::Case> = cases.iter().collect();
    let ran = if refs.len() == 1 {
        vec![backend.run(refs[0])]
    } else {
        backend.run_batch(&refs)
    };
    for ((i, id), result) in at.into_iter().zip(ids).zip(ran) {
        answers[i] = Some(Say::Line(encode(&reply(&id, result))));
    }
    let mut out: Vec<Say> = Vec::new();
    for (i, a) in answers.into_iter().enumerate() {
        let line = match a {
            Some(Say::Line(l)) => l,
            Some(other) => {
                out.push(other);
                continue;
            }
            None => encode(&Reply::Error(ErrorReply {
                id: String::new(),
                message: "the backend's batch gave fewer results than cases".into(),
            })),
        };
        let again = after.iter().find(|(at, _)| *at == i).map(|(_, k)| *k);
        out.push(Say::Line(line.clone()));
        match again {
            Some(FaultKind::Twice) => out.push(Say::Line(line)),
            Some(FaultKind::Late) => {
                out.push(Say::Pause(std::time::Duration::from_millis(100)));
                out.push(Say::Line(line));
            }
            _ => {}
        }
    }
    out
}

/// The `hang` fault: answers nothing, until the runner that started this
/// process has gone (a runner that times the case out ends the process
/// group; one killed outright leaves this process to its new parent, which
/// is how it learns to exit instead of hanging on as an orphan).
fn hang() -> ! {
    // SAFETY: getppid has no preconditions and cannot fail.
    let parent = unsafe { libc::getppid() };
    loop {
        std::thread::sleep(std::time::Duration::from_millis(200));
        // SAFETY: as above.
        if unsafe { libc::getppid() } != parent {
            std::process::exit(0);
        }
    }
}
