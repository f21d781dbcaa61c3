//! The osctl binary: everything happens in the library; this maps it to an exit code.

fn main() {
    // A panic is a bug: say so, and exit with the documented code 101 (the release profile
    // aborts on panic, which would otherwise end the process with SIGABRT).
    std::panic::set_hook(Box::new(|info| {
        let text = info.to_string();
        eprintln!(
            "error: internal error (a bug in osctl): {}",
            osctl::redact::redact(&text)
        );
        eprintln!("\nhint: please report it with the command line and `osctl --version`");
        std::process::exit(101);
    }));
    let env = |name: &str| std::env::var(name).ok();
    std::process::exit(osctl::run(std::env::args_os(), &env));
}
