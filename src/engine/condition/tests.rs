use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Facts, holds, parse};

fn context(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn check(expr: &str, outcome: &str, ctx: &BTreeMap<String, Value>) -> bool {
    let facts = Facts {
        outcome,
        preferred_label: Some("Approve"),
        context: ctx,
    };
    holds(expr, &facts)
}

#[test]
fn operators_and_keys() {
    let ctx = context(&[
        ("tests", json!("3 passed, PASS")),
        ("context.mode", json!("fast")),
        ("count", json!(7)),
        ("tags", json!(["a", "b"])),
        ("flag", json!(false)),
        ("zero", json!("0")),
    ]);
    let cases = [
        ("outcome=succeeded", true),
        ("outcome!=succeeded", false),
        ("outcome = succeeded && context.tests contains PASS", true),
        ("context.mode=fast", true),
        ("mode=fast", false),
        (
            "context.count > 5 && count <= 7 && count >= 7 && count < 8",
            true,
        ),
        ("count > seven", false),
        ("tags contains a", true),
        ("tags contains c", false),
        ("tests matches \"^[0-9]+ passed\"", true),
        ("preferred_label=Approve", true),
        ("missing", false),
        ("flag", false),
        ("zero", false),
        ("tests", true),
        ("!missing", true),
        ("!!tests", true),
        ("outcome=failed || missing=", true),
        ("missing= || outcome=succeeded", false),
        ("outcome=failed || outcome=succeeded && missing", false),
        ("", true),
        ("   ", true),
        ("tests contains \"3 passed\"", true),
        ("contains=x", false),
    ];
    for (expr, expected) in cases {
        assert_eq!(check(expr, "succeeded", &ctx), expected, "{expr}");
    }
}

#[test]
fn unreadable_conditions_fail_with_fabros_messages_and_evaluate_false() {
    let cases = [
        ("outcome=", None),
        (
            "&& x",
            Some("Parse error: expected key, got And in condition expression"),
        ),
        (
            "a & b",
            Some("Parse error: unexpected character '&' in condition expression"),
        ),
        ("a > ", Some("Parse error: expected value after operator")),
        (
            "a = = b",
            Some("Parse error: expected value after operator, got OpEq"),
        ),
        (
            "a b",
            Some("Parse error: unexpected token Word(\"b\") in condition expression"),
        ),
        (
            "!",
            Some("Parse error: unexpected end of condition expression"),
        ),
        (
            "a matches \"(\"",
            Some("Parse error: invalid regex pattern '(': "),
        ),
    ];
    for (expr, message) in cases {
        match (parse(expr), message) {
            (Ok(_), None) => {}
            (Err(e), Some(m)) => assert!(e.to_string().starts_with(m), "{expr}: {e}"),
            (result, _) => panic!("{expr}: {result:?}"),
        }
    }
    assert!(!check("a & b", "succeeded", &BTreeMap::new()));
}
