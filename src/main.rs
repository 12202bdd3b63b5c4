use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = bansha::cli::Cli::parse();
    // The daemon's job is to report what changes: it logs at info level by default.
    let verbose = match cli.command {
        bansha::cli::Command::Run(_) => cli.verbose.max(1),
        _ => cli.verbose,
    };
    bansha::cli::init_tracing(verbose);
    match bansha::cli::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bansha: {}", e.message());
            ExitCode::from(e.exit_code())
        }
    }
}
