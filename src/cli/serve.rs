//! `bansha serve`: the web page (`crate::web`) on a current-thread runtime, until Ctrl-C
//! or SIGTERM.

use std::sync::Arc;

use super::*;
use crate::rules::RuleSet;
use crate::web;

pub fn run(a: &ServeArgs) -> CliResult {
    let cfg = load_config(&a.config)?;
    RuleSet::load(&cfg.rules_path()).map_err(CliError::input)?;
    let tokens = web::tokens(&cfg).map_err(CliError::Input)?;
    let clock = crate::time::process_clock(cfg.tz).map_err(CliError::Input)?;
    let app = web::App::new(&cfg, tokens.clone(), clock).map_err(CliError::Input)?;
    let listen = a
        .listen
        .clone()
        .or_else(|| cfg.serve.listen.clone())
        .unwrap_or_else(|| web::DEFAULT_LISTEN.to_string());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::runtime)?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&listen)
            .await
            .map_err(|e| CliError::Input(format!("--listen {listen}: {e}")))?;
        let addr = listener.local_addr().map_err(CliError::runtime)?;
        if !addr.ip().is_loopback() {
            tracing::warn!(
                "serve: listening on {addr}, beyond this machine: tokens and session cookies \
                 travel in clear unless a TLS proxy is in front"
            );
        }
        let roles: Vec<&str> = [
            tokens.director.as_ref().map(|_| "director"),
            tokens.moderator.as_ref().map(|_| "moderator"),
        ]
        .into_iter()
        .flatten()
        .collect();
        emit(&format!(
            "bansha serve: http://{addr}/ (sign in as: {})\n",
            roles.join(", ")
        ))?;
        web::serve(listener, Arc::new(app), super::signals::first())
            .await
            .map_err(CliError::runtime)
    })
}
