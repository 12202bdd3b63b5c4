use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = bansha::cli::Cli::parse();
    bansha::cli::init_tracing(cli.verbose);
    match bansha::cli::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bansha: {}", e.message());
            ExitCode::from(e.exit_code())
        }
    }
}
