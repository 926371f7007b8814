//! Links the unwinder into the program from the C compiler's `libgcc_eh.a` instead of loading
//! it from `libgcc_s.so.1` at every start: that library's start-up asks the processor for its
//! features, a question a virtual machine traps, and `git fabro --version` takes about a tenth
//! less CPU without it (docs/decisions.md). The archive comes before `-lgcc_s` on the link
//! line, so the program takes nothing from the shared library and does not load it.
//!
//! Only where the linker is the lld that Rust brings, its default for x86-64 Linux; another
//! linker keeps the plain build, as a build must never fail for speed.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "x86_64-unknown-linux-gnu";

fn main() {
    println!("cargo::rerun-if-env-changed=RUSTC_LINKER");
    if links_with_rust_lld() && static_unwinder_available() {
        println!("cargo::rustc-link-lib=static:-bundle=gcc_eh");
    }
}

/// Whether this build links with Rust's own lld: the x86-64 Linux target, a toolchain that
/// ships lld for the C compiler to call (a distribution's rustc may not), and no linker chosen
/// by configuration or flags.
fn links_with_rust_lld() -> bool {
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    env::var("TARGET").is_ok_and(|target| target == TARGET)
        && env::var_os("RUSTC_LINKER").is_none()
        && !["linker", "link-self-contained", "fuse-ld", "link-arg"]
            .iter()
            .any(|word| flags.contains(word))
        && sysroot().is_some_and(|root| {
            root.join("lib/rustlib")
                .join(TARGET)
                .join("bin/gcc-ld/ld.lld")
                .is_file()
        })
}

/// Whether the C compiler, which drives the link, has the static unwinder (`libgcc_eh.a`);
/// a statically linked C library brings its own.
fn static_unwinder_available() -> bool {
    let crt_static = env::var("CARGO_CFG_TARGET_FEATURE")
        .is_ok_and(|features| features.split(',').any(|f| f == "crt-static"));
    !crt_static
        && Command::new("cc")
            .arg("-print-file-name=libgcc_eh.a")
            .output()
            .ok()
            .filter(|output| output.status.success())
            .and_then(|output| String::from_utf8(output.stdout).ok())
            .is_some_and(|path| Path::new(path.trim()).is_absolute())
}

/// The sysroot of the compiler that builds this crate.
fn sysroot() -> Option<PathBuf> {
    let rustc = env::var_os("RUSTC")?;
    let output = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let root = String::from_utf8(output.stdout).ok()?;
    output
        .status
        .success()
        .then(|| Path::new(root.trim()).to_path_buf())
}
