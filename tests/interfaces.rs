//! The CLI's documented surface: every subcommand and long flag `bansha` accepts is named in
//! `../shared/CONTRACTS.md` (the contract) or in `docs/interfaces.md` (bansha's extensions).
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
fn every_subcommand_and_long_flag_is_in_the_contract_or_docs_interfaces() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let contract = read(&root.join("../shared/CONTRACTS.md"));
    let ours = read(&root.join("docs/interfaces.md"));
    let docs = format!("{contract}\n{ours}");
    let missing = undocumented(&docs);
    assert!(
        missing.is_empty(),
        "named in neither ../shared/CONTRACTS.md nor docs/interfaces.md:\n  {}",
        missing.join("\n  ")
    );
}

/// The check can fail: without docs/interfaces.md, bansha's own flags are reported.
#[test]
fn the_surface_check_reports_what_the_contract_alone_does_not_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let contract = read(&root.join("../shared/CONTRACTS.md"));
    let missing = undocumented(&contract);
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
