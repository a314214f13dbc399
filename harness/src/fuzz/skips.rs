//! Why a campaign skipped a generated case: the reference could not decide
//! it (a limit of the reference, never a verdict on the generator or the
//! backend), counted per reason in the summary.

use ser_reference::FaultCode;
use std::collections::BTreeMap;

/// Skipped cases per reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skips(pub BTreeMap<String, u64>);

impl Skips {
    pub fn add(&mut self, reason: &str) {
        *self.0.entry(reason.to_string()).or_default() += 1;
    }

    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }
}

impl std::fmt::Display for Skips {
    /// `42 skipped (38 ..., 4 ...)`, most frequent first.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} skipped", self.total())?;
        if self.0.is_empty() {
            return Ok(());
        }
        let mut reasons: Vec<(&String, &u64)> = self.0.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let parts: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
        write!(f, " ({})", parts.join(", "))
    }
}

/// A case for other profiles than the campaign's: the generator used a
/// form the profile's text does not define (Shader Model 6.9's
/// `RAY_FLAG_FORCE_OPACITY_MICROMAP_2_STATE` under a 0027 profile).
pub const OTHER_PROFILE: &str =
    "apply only to other profiles (a form the profile's text does not define)";

/// Why the reference could not decide a case that ended in `code` (a limit
/// of the reference: [`FaultCode::is_undefined_behaviour`] is false).
pub fn reason(code: FaultCode, max_runs: usize) -> String {
    match code {
        FaultCode::TooManyOutcomes => {
            format!("need more than {max_runs} runs of the reference to explore their choices")
        }
        FaultCode::StepBudgetExhausted => "ran out of the reference's step budget".into(),
        FaultCode::EvaluationDepthExceeded => "nest deeper than the reference evaluates".into(),
        FaultCode::CallShaderDepthExceeded => {
            "nest CallShader deeper than the reference follows".into()
        }
        FaultCode::Unsupported => "use a construct the reference cannot run".into(),
        FaultCode::UnspecifiedControl => "branch on a value the spec leaves unspecified".into(),
        other => format!("ended in {}", other.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_reason_most_frequent_first() {
        let mut s = Skips::default();
        assert_eq!(s.to_string(), "0 skipped");
        for _ in 0..3 {
            s.add(&reason(FaultCode::TooManyOutcomes, 32));
        }
        s.add(&reason(FaultCode::UnspecifiedControl, 32));
        assert_eq!(s.total(), 4);
        assert_eq!(
            s.to_string(),
            "4 skipped (3 need more than 32 runs of the reference to explore their choices, 1 branch on a value the spec leaves unspecified)"
        );
    }
}
