//! Any line a backend or runner could send: decoding never panics, and a
//! message that decodes encodes to one that decodes to the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ser_harness::protocol::{decode, encode, BackendHello, Reply, Request, RunnerHello};

fn round_trip<T>(line: &str)
where
    T: ser_harness::protocol::codec::Message + Send + serde::Serialize + PartialEq + std::fmt::Debug,
{
    if let Ok(m) = decode::<T>("fuzz", line) {
        let again = decode::<T>("fuzz", &encode(&m)).expect("an encoded message decodes");
        assert_eq!(again, m);
    }
}

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    round_trip::<Reply>(&line);
    round_trip::<Request>(&line);
    round_trip::<BackendHello>(&line);
    round_trip::<RunnerHello>(&line);
});
