//! A corpus of made-up secrets in the shapes of real ones (none of them was ever a real
//! credential), each in a line of the kind an agent's transcript or a command's output holds.

use super::*;

/// (the text, the rule that must redact it, what must remain).
fn corpus() -> Vec<(String, &'static str, &'static str)> {
    let a36 = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    vec![
        (format!("export GH=ghp_{a36}"), "github-token", "export GH="),
        (format!("token github_pat_11ABCDEFG0{a36}_{a36}"), "github-token", "token "),
        ("glpat-Xy9zAb3dEf6hIj9kLm2n here".into(), "gitlab-token", ""),
        ("slack xoxb-1234567890-9876543210-AbCdEfGhIjKlMnOpQrStUvWx".into(), "slack-token", "slack "),
        ("post to https://hooks.slack.com/services/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".into(), "slack-webhook", "post to "),
        ("aws_access_key_id = AKIAQ7XRZ2MN4KDL5WPE".into(), "aws-access-key", "aws_access_key_id = "),
        ("key=AIzaSyD3x-Qw9rT5yU1iO7pL2kJ8hG4fD6sA0zX".into(), "gcp-api-key", "key="),
        (format!("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={}==;EndpointSuffix=core", "Ab1".repeat(28) + "xy"), "azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="),
        ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dcXy".into(), "stripe-key", "stripe "),
        (format!("ANTHROPIC_API_KEY=sk-ant-api03-{a36}{a36}-xyzAA"), "anthropic-key", "ANTHROPIC_API_KEY="),
        (format!("sk-proj-{a36}{a36}"), "openai-key", ""),
        (format!("sk-{}T3BlbkFJ{}", &a36[..24], &a36[..24]), "openai-key", ""),
        (format!("//registry.npmjs.org/:_authToken=npm_{a36}"), "npm-token", "//registry.npmjs.org/:_authToken="),
        (format!("password = pypi-AgEIcHlwaS5vcmc{a36}{a36}"), "pypi-token", "password = "),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----".into(), "private-key", ""),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U".into(), "jwt", "Authorization: Bearer "),
        ("git clone https://alice:s3cr3t-Pa55@git.example.com/repo.git".into(), "url-password", "git clone https://alice:"),
        (r#"{"client_secret": "Zq8LmN2pXr7Tt4Vb9Wc1Yd6Ke3"}"#.into(), "secret-assignment", r#"{"client_secret": ""#),
    ]
}

#[test]
fn every_shape_in_the_corpus_is_redacted_by_its_rule() {
    let redactor = Redactor::default();
    for (text, rule, kept) in corpus() {
        let clean = redactor.text(&text);
        let marker = format!("REDACTED:{rule}");
        assert!(clean.contains(&marker), "{rule}: {text:?} became {clean:?}");
        assert!(clean.starts_with(kept), "{rule}: {clean:?} keeps {kept:?}");
        assert!(!clean.contains("A1b2C3d4E5f6"), "{rule}: {clean:?}");
    }
}

#[test]
fn ordinary_text_is_left_as_it_is_and_borrowed() {
    let redactor = Redactor::default();
    for text in [
        "password = input(\"password: \")",
        "let token = next_token(&mut lexer);",
        "secret_name: primary-database-credentials",
        "https://example.com/path?query=1",
        "commit 0123456789abcdef0123456789abcdef01234567",
        "sk-ant is a prefix, not a key",
    ] {
        let clean = redactor.text(text);
        assert!(
            matches!(clean, Cow::Borrowed(_)),
            "{text:?} became {clean:?}"
        );
    }
}

#[test]
fn secret_values_of_the_environment_are_redacted_wherever_they_appear() {
    let env = [
        ("GITHUB_TOKEN", "plain-looking-but-secret"),
        ("MY_SERVICE_PASSWORD", "hunter2hunter2"),
        ("HOME", "/home/someone/somewhere-long"),
        ("SHORT_TOKEN", "abc"),
    ];
    let redactor = Redactor::with_environment(Vec::new(), env);
    let clean = redactor.text(
        "echo plain-looking-but-secret; login hunter2hunter2 in /home/someone/somewhere-long",
    );
    assert_eq!(
        clean,
        "echo REDACTED:environment-secret; login REDACTED:environment-secret in /home/someone/somewhere-long"
    );
    assert_eq!(redactor.text("abc"), "abc");
}

#[test]
fn rules_of_the_users_own_are_added_and_checked() {
    let rule = UserRule::parse(r"acme-key=ACME-[0-9]{6}").unwrap();
    let redactor = Redactor::new(vec![rule], Vec::new());
    assert_eq!(
        redactor.text("use ACME-123456 now"),
        "use REDACTED:acme-key now"
    );
    assert!(UserRule::parse("no-equals").is_err());
    assert!(UserRule::parse("bad name=x").is_err());
    assert!(UserRule::parse("broken=(").is_err());
}

#[test]
fn json_strings_and_keys_are_redacted_in_place() {
    let mut value = serde_json::json!({
        "note": format!("ghp_{}", "Z".repeat(36)),
        "list": [1, "xoxp-1234567890-abcdefghijkl"],
        "fine": "nothing here"
    });
    Redactor::default().json(&mut value);
    assert_eq!(value["note"], "REDACTED:github-token");
    assert_eq!(value["list"][1], "REDACTED:slack-token");
    assert_eq!(value["fine"], "nothing here");
}

#[test]
fn bytes_that_are_not_utf8_are_redacted_too() {
    let mut text = vec![0xff, 0xfe, b' '];
    text.extend_from_slice(format!("ghp_{}", "q".repeat(36)).as_bytes());
    let clean = Redactor::default().bytes(&text).into_owned();
    assert_eq!(&clean[..3], &[0xff, 0xfe, b' ']);
    assert_eq!(&clean[3..], b"REDACTED:github-token");
}
