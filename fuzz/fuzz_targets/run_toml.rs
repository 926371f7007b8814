//! `run.toml` and `settings.toml` as users write them.
#![no_main]

use git_fabro::config::Settings;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = Settings::parse(text, std::path::Path::new("run.toml"));
});
