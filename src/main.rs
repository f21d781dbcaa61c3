//! The osctl binary: everything happens in the library; this maps it to an exit code.

// The process's edge: the arguments, the exit code and the environment come in here, once.
#[allow(clippy::disallowed_methods)]
fn main() {
    // A panic is a bug: say so, and exit with the documented code 101 (the release profile
    // aborts on panic, which would otherwise end the process with SIGABRT).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let hook_args = args.clone();
    std::panic::set_hook(Box::new(move |info| {
        let text = osctl::redact::redact(&info.to_string()).into_owned();
        eprintln!("error: internal error (a bug in osctl): {text}");
        eprintln!("\nhint: please report it with the command line and `osctl --version`");
        osctl::panic_document(&hook_args, &text);
        std::process::exit(101);
    }));
    let env = |name: &str| std::env::var(name).ok();
    std::process::exit(osctl::run(args, &env));
}
