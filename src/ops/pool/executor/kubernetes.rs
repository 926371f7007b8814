//! `kubernetes`: a Job rendered from a template the user keeps (examples/executors/ holds one),
//! applied with `kubectl apply -f -`. The template names what it needs as `{{run_id}}`,
//! `{{job_name}}` and `{{worker_script}}`; each is put in as a quoted string, so no value can
//! add YAML of its own.

use std::process::Command;

use super::{Launch, Started, run_tool};
use crate::error::{Error, Result};

pub fn start(launch: &Launch) -> Result<Started> {
    let settings = &launch.settings.kubernetes;
    let Some(template) = &settings.template else {
        return Err(Error::Usage(
            "the kubernetes executor has no Job template: name it in settings.toml, [executor.kubernetes] template = \"FILE\" (examples/executors/kubernetes-job.yaml is one)".into(),
        ));
    };
    let path = launch.repo.main_path().join(template);
    let text = std::fs::read_to_string(&path).map_err(Error::io(format!(
        "cannot read the Job template {}",
        path.display()
    )))?;
    let job_name = format!("fabro-{}", launch.run.as_str().to_ascii_lowercase());
    let values = [
        ("run_id", launch.run.to_string()),
        ("job_name", job_name.clone()),
        ("worker_script", launch.worker_script()?),
    ];
    let rendered =
        render(&text, &values).map_err(|why| Error::Usage(format!("{}: {why}", path.display())))?;
    let default = ["kubectl", "apply", "-f", "-"].map(String::from).to_vec();
    let apply = settings.apply.clone().unwrap_or(default);
    let Some((program, args)) = apply.split_first() else {
        return Err(Error::Usage("[executor.kubernetes] apply is empty".into()));
    };
    let said = run_tool(Command::new(program).args(args), Some(rendered.as_bytes()))?;
    Ok(Started {
        what: if said.is_empty() {
            format!("job {job_name}")
        } else {
            said
        },
        log: None,
    })
}

/// `template` with each `{{name}}` of `values` put in as a JSON string (which YAML reads as
/// the same string); a name it does not know is an error.
fn render(template: &str, values: &[(&str, String)]) -> std::result::Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or("a {{ that no }} closes")?;
        let name = after[..end].trim();
        let value = values
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, value)| value)
            .ok_or_else(|| {
                let known: Vec<&str> = values.iter().map(|(n, _)| *n).collect();
                format!(
                    "no value {{{{{name}}}}}: a template may use {}",
                    known.join(", ")
                )
            })?;
        out.push_str(&serde_json::to_string(value).unwrap_or_default());
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn values_go_in_as_quoted_strings_and_an_unknown_name_is_refused() {
        let values = [
            ("run_id", "01ABC".to_owned()),
            ("worker_script", "a\"b\nc".to_owned()),
        ];
        assert_eq!(
            render("name: {{ run_id }}\nargs: [{{worker_script}}]\n", &values).unwrap(),
            "name: \"01ABC\"\nargs: [\"a\\\"b\\nc\"]\n"
        );
        assert!(
            render("{{image}}", &values)
                .unwrap_err()
                .contains("run_id, worker_script")
        );
        assert!(render("{{run_id", &values).is_err());
    }
}
