//! Many cases' raygeneration shaders as one module. NVIDIA's driver
//! spends tens of milliseconds compiling each shader of a ray tracing
//! pipeline however small (on the H100, about 49 ms of one core per
//! generated raygeneration shader), so a batch of generated cases pays
//! that once per merged module instead of once per case. Cases merge where
//! their raygeneration modules differ only in the body of `main` and the
//! caller's key (their other modules, table, ...) is the same; the merged
//! `main` runs the body of the case a push constant names
//! ([`CASE_PUSH_CONSTANT`]), so each case still runs exactly its own
//! program.

use crate::emit::{Glsl, Stage};
use std::collections::HashMap;

/// The push constant block that names the case a merged module runs.
pub const CASE_PUSH_CONSTANT: &str =
    "layout(push_constant) uniform _BatchCase { uint _batch_case; };\n";

/// One merged module and its cases: (the caller's index, the case's index
/// in the module's `switch`).
pub struct Merged {
    pub glsl: Glsl,
    pub members: Vec<(usize, u32)>,
}

/// An emitted raygeneration module as its declarations (everything before
/// `main`) and `main`'s body, where `main` is its last function.
fn split(source: &str) -> Option<(&str, &str)> {
    const MAIN: &str = "\nvoid main() {\n";
    let at = source.find(MAIN)?;
    let body = source[at + MAIN.len()..].strip_suffix("}\n")?;
    // Another function after `main` would close at the first column.
    if body.lines().any(|l| l.starts_with('}')) {
        return None;
    }
    Some((&source[..=at], body))
}

/// Merges the raygeneration modules of `items` (the caller's index, a key
/// the cases of one module must share, the module) in sets of at most
/// `per`. A case left alone, or whose module is not in the emitter's
/// shape, is in no set.
pub fn merge(items: &[(usize, String, &Glsl)], per: usize) -> Vec<Merged> {
    let mut sets: HashMap<(&str, &str, &str), Vec<(usize, &str)>> = HashMap::new();
    let mut order = Vec::new();
    for (i, key, g) in items {
        let Some((declarations, body)) = split(&g.source) else {
            continue;
        };
        if g.stage != Stage::RayGeneration {
            continue;
        }
        let k = (key.as_str(), g.entry.as_str(), declarations);
        let set = sets.entry(k).or_default();
        if set.is_empty() {
            order.push(k);
        }
        set.push((*i, body));
    }
    let mut out = Vec::new();
    for k in order {
        for chunk in sets[&k].chunks(per.max(1)) {
            if chunk.len() < 2 {
                continue;
            }
            out.push(Merged {
                glsl: Glsl {
                    stage: Stage::RayGeneration,
                    entry: k.1.to_string(),
                    source: text(k.2, chunk.iter().map(|(_, b)| *b)),
                },
                members: chunk
                    .iter()
                    .enumerate()
                    .map(|(n, (i, _))| (*i, n as u32))
                    .collect(),
            });
        }
    }
    out
}

/// The merged module: the shared declarations, each body as a function,
/// and a `main` that calls the one the push constant names.
fn text<'a>(declarations: &str, bodies: impl Iterator<Item = &'a str>) -> String {
    let mut s = format!("{declarations}{CASE_PUSH_CONSTANT}");
    let mut cases = String::new();
    for (n, body) in bodies.enumerate() {
        s += &format!("\nvoid _batch_case_{n}() {{\n{body}}}\n");
        cases += &format!("    case {n}u: _batch_case_{n}(); break;\n");
    }
    s += &format!("\nvoid main() {{\n    switch (_batch_case) {{\n{cases}    }}\n}}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raygen(body: &str) -> Glsl {
        Glsl {
            stage: Stage::RayGeneration,
            entry: "RayGen".into(),
            source: format!("#version 460\nlayout(binding = 1) buffer B {{ uint Out[]; }};\n\nvoid main() {{\n{body}}}\n"),
        }
    }

    #[test]
    fn cases_sharing_declarations_merge_and_each_keeps_its_body() {
        let a = raygen("    Out[0] = 1u;\n");
        let b = raygen("    Out[0] = 2u;\n    return;\n");
        let items = vec![(3, "k".to_string(), &a), (5, "k".to_string(), &b)];
        let merged = merge(&items, 8);
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].members, vec![(3, 0), (5, 1)]);
        let src = &merged[0].glsl.source;
        assert!(src.contains(CASE_PUSH_CONSTANT));
        assert!(src.contains("void _batch_case_0() {\n    Out[0] = 1u;\n}"), "{src}");
        assert!(src.contains("void _batch_case_1() {\n    Out[0] = 2u;\n    return;\n}"));
        assert!(src.contains("case 1u: _batch_case_1(); break;"));
        // One declaration of the buffer, one main.
        assert_eq!(src.matches("buffer B").count(), 1);
        assert_eq!(src.matches("void main()").count(), 1);
        assert!(crate::compile::spirv(&merged[0].glsl).is_ok(), "{src}");
    }

    #[test]
    fn cases_apart_stay_apart() {
        let a = raygen("    Out[0] = 1u;\n");
        let b = raygen("    Out[0] = 2u;\n");
        let mut other = raygen("    Out[0] = 3u;\n");
        other.source = other.source.replace("uint Out[]", "int Out[]");
        // Different keys, different declarations, a set of one, sets of at most `per`.
        let items = vec![
            (0, "k".to_string(), &a),
            (1, "j".to_string(), &b),
            (2, "k".to_string(), &other),
        ];
        assert!(merge(&items, 8).is_empty());
        let items = vec![
            (0, "k".to_string(), &a),
            (1, "k".to_string(), &b),
            (2, "k".to_string(), &a),
        ];
        let merged = merge(&items, 2);
        assert_eq!(merged.len(), 1, "the third case is alone in its set");
        assert_eq!(merged[0].members, vec![(0, 0), (1, 1)]);
    }

    #[test]
    fn a_module_with_a_function_after_main_does_not_merge() {
        let mut a = raygen("    Out[0] = 1u;\n");
        a.source += "\nvoid later() {\n}\n";
        assert!(split(&a.source).is_none());
    }
}
