//! `bansha sync` (one polling pass) and `bansha run` (the daemon).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::*;
use crate::daemon::{Daemon, DaemonError, PassSummary, StandardReports};
use crate::fetch::Fetcher;
use crate::store::Store;

pub fn run(a: &RunArgs, once: bool) -> CliResult {
    let cfg = load_config(&a.config)?;
    // The day's reports need the rule set: refuse before the first request, not at 关门.
    let rules = cfg.rules_file().map_err(CliError::input)?;
    crate::rules::RuleSet::load(&rules).map_err(CliError::input)?;
    // Warnings (secret files readable by others) are logged by `from_config`.
    let (fetcher, _warnings) = Fetcher::from_config(&cfg).map_err(CliError::input)?;
    let reports_dir = match (&a.reports, &cfg.daemon.reports_dir) {
        (Some(p), _) => p.clone(),
        (None, Some(p)) => cfg.resolve(p),
        (None, None) => cfg.dir().join("reports"),
    };
    let clock = crate::time::process_clock(cfg.tz).map_err(CliError::Input)?;
    let db = cfg.db_path();
    let store = Store::open(&db).map_err(CliError::runtime)?;
    // One sync/run per database; held until this function returns (or the process dies).
    let started = cfg.fmt_time(clock.now());
    let _lock = super::lock::acquire(&db, if once { "sync" } else { "run" }, &started)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::runtime)?;
    let mut daemon = Daemon::new(cfg, store, fetcher, clock, reports_dir)
        .with_progress(once)
        .with_writer(Box::new(StandardReports));
    if !once {
        daemon = daemon.with_tally_watch();
    }
    let stop = daemon.stop_flag();
    rt.block_on(async move {
        tokio::spawn(watch_signals(stop.clone()));
        if once {
            // `sync --reports DIR` also writes the reports of the days closed by then.
            let sum = if a.reports.is_some() {
                daemon.step().await
            } else {
                daemon.sync_once().await
            }
            .map_err(daemon_error)?;
            emit(&format!("{}\n", summary_line(&sum)))?;
            if let Some(msg) = daemon.game_over() {
                eprintln!("bansha: {msg}");
            }
            if sum.stopped {
                return Err(CliError::Runtime(
                    "interrupted; the next sync resumes where this one stopped".into(),
                ));
            }
            if !sum.errors.is_empty() || !sum.gone.is_empty() {
                let mut msg = String::from("some threads could not be read:");
                for (tid, why) in daemon.gone() {
                    msg.push_str(&format!("\n  thread {tid}: {why}"));
                }
                for e in &sum.errors {
                    msg.push_str(&format!("\n  {e}"));
                }
                return Err(CliError::Runtime(msg));
            }
            Ok(())
        } else {
            tracing::info!(config = %daemon.config().path.display(), "daemon started");
            daemon.run().await.map_err(daemon_error)?;
            if let Some(msg) = daemon.game_over() {
                eprintln!("bansha: {msg}; the daemon stopped");
            }
            Ok(())
        }
    })
}

fn daemon_error(e: DaemonError) -> CliError {
    CliError::Runtime(e.to_string())
}

fn summary_line(s: &PassSummary) -> String {
    if s.stopped {
        // Cut short by a signal: say what was stored, never a count of threads "synced".
        if s.pages == 0 {
            return "interrupted before anything was stored".into();
        }
        return format!(
            "interrupted after reading {} pages ({} unchanged); stored {} new posts, {} edited, {} missing",
            s.pages, s.unchanged, s.new_posts, s.changed, s.missing
        );
    }
    format!(
        "synced {} threads: {} pages, {} new posts, {} edited, {} missing",
        s.threads, s.pages, s.new_posts, s.changed, s.missing
    )
}

/// A stop request (Ctrl-C, SIGTERM; on Windows also Ctrl-Break and closing the console:
/// [`super::signals`]) raises the stop flag (the daemon stops after the current page); a
/// second request exits at once (nothing is lost: every stored page is committed).
async fn watch_signals(stop: Arc<AtomicBool>) {
    let Ok(mut requests) = super::signals::StopRequests::listen() else {
        return;
    };
    for n in 0.. {
        requests.recv().await;
        if n > 0 {
            eprintln!("bansha: second signal, exiting now");
            std::process::exit(130);
        }
        eprintln!("bansha: stopping after the current page (signal again to exit now)");
        stop.store(true, Ordering::SeqCst);
    }
}
