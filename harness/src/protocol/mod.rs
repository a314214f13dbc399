//! The process protocol: how `ser-conformance` talks to a backend in
//! another process (`--backend exec:PATH`), specified in
//! `docs/protocol.md`, with a JSON Schema per message in `docs/protocol/`.
//!
//! JSON Lines over the backend's stdin and stdout: the runner says `hello`,
//! the backend answers with its own `hello` (name, protocol version,
//! profile, capabilities), then the runner sends one `run` request per case
//! and the backend answers each with one reply. The runner closes stdin
//! when it is done; the backend then exits.

pub mod client;
pub mod codec;
pub mod convert;
pub mod process;
pub mod serve;
pub mod wire;

pub use codec::{decode, encode, ProtocolError};
pub use wire::*;

/// The protocol version this runner speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest line either side may send, in bytes.
pub const MAX_LINE: usize = 64 << 20;
