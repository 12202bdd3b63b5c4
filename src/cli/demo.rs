//! `bansha demo`: the whole pipeline on an embedded sample game. The project's test forum
//! serves the sample game on 127.0.0.1; bansha logs in with the director's cookies, syncs
//! every thread into a fresh store over HTTP, and prints the reports a director publishes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::*;
use crate::daemon::Daemon;
use crate::fetch::Fetcher;
use crate::store::Store;
use crate::time::ManualClock;
use bansha_testforum::{ForumSpec, TestForum};

pub(super) const FORUM: &str = include_str!("../../config/demo-forum.toml");
pub(super) const GAME: &str = include_str!("../../config/sample-game.toml");
pub(super) const RULES: &str = include_str!("../../rules/075-zhifou.toml");
/// The director's account on the demo forum.
const DIRECTOR_UID: u64 = 1;
/// The demo's "now": an hour after day 2's 关门, when the director checks the day.
const NOW: &str = "2026-03-05 22:00";

pub fn run(a: &DemoArgs) -> CliResult {
    let dir = match &a.dir {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(format!("bansha-demo-{}", std::process::id())),
    };
    setup(&dir).map(|_| ())
}

/// Start the forum, write the game's files into `dir`, sync, print the reports.
/// Returns the config path so the user can run the commands again.
fn setup(dir: &Path) -> Result<PathBuf, CliError> {
    std::fs::create_dir_all(dir.join("rules"))
        .map_err(|e| CliError::runtime(format!("{}: {e}", dir.display())))?;
    let spec =
        ForumSpec::parse(Path::new("config/demo-forum.toml"), FORUM).map_err(CliError::runtime)?;
    let forum =
        TestForum::start(spec).map_err(|e| CliError::runtime(format!("test forum: {e}")))?;
    println!(
        "== test forum serving the sample game at {}",
        forum.base_url()
    );

    let write = |name: &str, text: &str| -> Result<PathBuf, CliError> {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| CliError::runtime(format!("{}: {e}", p.display())))?;
        private(&p);
        Ok(p)
    };
    write("rules/075-zhifou.toml", RULES)?;
    let game = GAME.replace("http://127.0.0.1:18080/", &forum.base_url());
    let config = write("game.toml", &game)?;
    let cookies = dir.join("cookies.txt");
    forum
        .write_cookies_txt(&cookies, DIRECTOR_UID)
        .map_err(|e| CliError::runtime(format!("{}: {e}", cookies.display())))?;
    private(&cookies);
    let db = dir.join("demo.sqlite");
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
    }

    let cfg = load_config(&ConfigArg {
        config: config.clone(),
    })?;
    let now = crate::time::parse_local(NOW, cfg.tz).expect("constant time parses");
    println!(
        "== syncing {} threads of \"{}\" as the director (cookies in {})",
        cfg.threads().len(),
        cfg.game.name,
        cookies.display()
    );
    let (fetcher, _warnings) = Fetcher::from_config(&cfg).map_err(CliError::input)?;
    let store = Store::open(&cfg.db_path()).map_err(CliError::runtime)?;
    let mut daemon = Daemon::new(
        cfg,
        store,
        fetcher,
        Arc::new(ManualClock::new(now)),
        dir.join("reports"),
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::runtime)?;
    let sum = rt.block_on(daemon.sync_once()).map_err(CliError::runtime)?;
    println!(
        "   {} pages fetched over HTTP, {} posts stored in {}",
        sum.pages,
        sum.new_posts,
        db.display()
    );
    if !sum.errors.is_empty() {
        return Err(CliError::Runtime(format!(
            "demo sync failed: {}",
            sum.errors.join("; ")
        )));
    }
    drop(daemon);
    drop(forum);

    let cfg_arg = ConfigArg {
        config: config.clone(),
    };
    let text = FormatArg {
        format: Format::Text,
    };
    let day = |day: u32| DayArgs {
        config: cfg_arg.clone(),
        day,
        format: text.clone(),
    };
    let tally = |day: u32, format: Format| TallyArgs {
        config: cfg_arg.clone(),
        day,
        at: None,
        confirm: false,
        answers: None,
        private_out: None,
        format: FormatArg { format },
    };
    section("Day 1 vote: the 警长 election (for the director)");
    super::tally::run(&tally(1, Format::Text))?;
    section("Day 2 vote (for the director)");
    super::tally::run(&tally(2, Format::Text))?;
    section("Day 2 vote: the public 公示 (BBCode to paste)");
    super::tally::run(&tally(2, Format::Bbcode))?;
    section("Day 2 activity at 关门");
    super::activity::run_activity(&day(2))?;
    section("电梯楼 for day 3 (BBCode, from day 2's posts)");
    super::activity::run_elevator(&DayArgs {
        format: FormatArg {
            format: Format::Bbcode,
        },
        ..day(2)
    })?;
    section("Try it yourself");
    println!("The demo's files are in {}. For example:", dir.display());
    println!(
        "  bansha tally --config {} --day 2 --format json",
        shell_word(&config)
    );
    println!("  bansha posts --config {} --tid 2002", shell_word(&config));
    Ok(config)
}

/// A path as one word of a command line to copy: in double quotes when it has white space
/// (a Windows user folder such as `C:\Users\导演 甲`), which cmd.exe, PowerShell and sh all read.
fn shell_word(p: &Path) -> String {
    let s = p.display().to_string();
    if s.chars().any(char::is_whitespace) {
        format!("\"{s}\"")
    } else {
        s
    }
}

fn section(title: &str) {
    println!("\n== {title}\n");
}

/// Config and cookie files hold secrets: keep them private to the user.
pub(super) fn private(p: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o600));
    }
    #[cfg(not(unix))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_demo_folder_with_a_space_is_quoted_in_the_commands_to_try() {
        assert_eq!(
            shell_word(Path::new("C:/Users/导演 甲/demo/game.toml")),
            "\"C:/Users/导演 甲/demo/game.toml\""
        );
        assert_eq!(
            shell_word(Path::new("/tmp/demo/game.toml")),
            "/tmp/demo/game.toml"
        );
    }
}
