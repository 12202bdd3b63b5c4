//! The CLI's documented surface: every subcommand and long flag `bansha` accepts is named in
//! `docs/interfaces.md`, the complete reference (the repository needs nothing beside it).
//! An undocumented command or flag is an interface users could script against without
//! knowing it exists — and one a later change could break without anyone noticing.

use std::path::Path;

use clap::CommandFactory;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `--flag` occurs in `doc` as a whole flag (not as the start of a longer one).
fn names_flag(doc: &str, flag: &str) -> bool {
    doc.match_indices(flag).any(|(i, _)| {
        doc[i + flag.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    })
}

/// Every command path (`["flags", "confirm"]`) with its long flags (globals included).
fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<(Vec<String>, Vec<String>)>) {
    let flags = cmd
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|l| !matches!(*l, "help" | "version"))
        .map(|l| format!("--{l}"))
        .collect();
    out.push((path.clone(), flags));
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let mut p = path.clone();
        p.push(sub.get_name().to_string());
        walk(sub, p, out);
    }
}

fn surface() -> Vec<(Vec<String>, Vec<String>)> {
    let mut cmd = bansha::cli::Cli::command();
    cmd.build();
    let mut out = Vec::new();
    walk(&cmd, Vec::new(), &mut out);
    out
}

fn undocumented(docs: &str) -> Vec<String> {
    let mut missing = Vec::new();
    for (path, flags) in surface() {
        if !path.is_empty() && !docs.contains(&path.join(" ")) {
            missing.push(format!("subcommand `bansha {}`", path.join(" ")));
        }
        for f in flags {
            if !names_flag(docs, &f) {
                missing.push(format!("`{f}` of `bansha {}`", path.join(" ")));
            }
        }
    }
    missing
}

#[test]
fn every_subcommand_and_long_flag_is_in_docs_interfaces() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = read(&root.join("docs/interfaces.md"));
    let missing = undocumented(&docs);
    assert!(
        missing.is_empty(),
        "not named in docs/interfaces.md:\n  {}",
        missing.join("\n  ")
    );
}

/// The check can fail: a page without the flags section reports bansha's flags.
#[test]
fn the_surface_check_reports_what_a_page_does_not_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = read(&root.join("docs/interfaces.md"));
    let cut = docs
        .split("### Flags beyond the table above")
        .next()
        .unwrap()
        .to_string();
    let missing = undocumented(&cut);
    for want in [
        "`--confirm` of `bansha tally`",
        "`--dry-run` of `bansha night`",
        "subcommand `bansha cards withdraw`",
    ] {
        assert!(missing.iter().any(|m| m == want), "{want}: {missing:?}");
    }
    assert!(names_flag("a `--at TIME`", "--at"));
    assert!(!names_flag("a `--attach`", "--at"));
}

/// The event kinds the config accepts, read from the parser's own refusal of an unknown one
/// (serde lists every variant it expects).
fn event_kinds() -> Vec<String> {
    let err = toml::from_str::<bansha::config::Event>("kind = \"no-such-kind\"")
        .expect_err("an unknown kind is refused")
        .to_string();
    let expected = err
        .split("expected one of")
        .nth(1)
        .unwrap_or_else(|| panic!("no variant list in: {err}"));
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Every `[[event]] kind` the config accepts is documented in docs/interfaces.md.
#[test]
fn every_event_kind_is_in_docs_interfaces() {
    let docs = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/interfaces.md"));
    let kinds = event_kinds();
    assert!(kinds.len() >= 10, "{kinds:?}");
    assert!(kinds.iter().any(|k| k == "proxy-vote"), "{kinds:?}");
    let missing: Vec<&String> = kinds
        .iter()
        .filter(|k| !docs.contains(&format!("`{k}`")) && !docs.contains(&format!("kind = \"{k}\"")))
        .collect();
    assert!(
        missing.is_empty(),
        "event kinds not in docs/interfaces.md: {missing:?}"
    );
}
