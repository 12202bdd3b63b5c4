use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = bansha::cli::Cli::parse();
    // Warnings and the summary by default; INFO lines (new posts, ballots…) need -v.
    bansha::cli::init_tracing(cli.verbose);
    match bansha::cli::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bansha: {}", e.message());
            ExitCode::from(e.exit_code())
        }
    }
}

/// Output into a closed pipe (`bansha … | head -1`) ends quietly with status 0. The commands
/// write through [`bansha::cli::emit`], which already treats a closed pipe as the end; this
/// hook catches a `println!` that panics on one (`failed printing to stdout: Broken pipe`).
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
