//! Windows' counterpart of the cookie file's `chmod 600` check. A Windows file has no mode
//! bits: who may read it is in its ACL, which it inherits from its folder. Files under the
//! user's profile folder (`%USERPROFILE%`, `C:\Users\<name>`) inherit an ACL for that user,
//! SYSTEM and Administrators only; a folder made elsewhere (`C:\bansha`, `D:\版杀`)
//! inherits the drive's, which lets every user of the computer read. bansha reads where the
//! file lies, not its ACL (an `icacls`-tightened file elsewhere is still warned about; the
//! message says how to look).

use std::path::Path;

/// A warning when `path` lies outside the user's profile folder `profile`; `user` is the
/// account name for the `icacls` command the warning suggests.
pub fn outside_profile_warning(path: &Path, profile: &Path, user: &str) -> Option<String> {
    let inside = match (std::fs::canonicalize(path), std::fs::canonicalize(profile)) {
        (Ok(p), Ok(home)) => p.starts_with(home),
        _ => path.starts_with(profile),
    };
    (!inside).then(|| {
        format!(
            "{} is outside your user folder {}, where files are usually readable by every \
             user of this computer: keep it under {} (for example in a bansha folder there), \
             or make it yours alone with `icacls \"{}\" /inheritance:r /grant:r \"{user}:F\"` \
             (`icacls \"{}\"` lists who can read it)",
            path.display(),
            profile.display(),
            profile.display(),
            path.display(),
            path.display()
        )
    })
}

/// [`outside_profile_warning`] for the user running bansha (`USERPROFILE`, `USERNAME`);
/// nothing when Windows does not say who that is.
#[cfg(windows)]
pub fn warning(path: &Path) -> Option<String> {
    let profile = std::env::var_os("USERPROFILE")?;
    let user = std::env::var("USERNAME").unwrap_or_else(|_| "%USERNAME%".to_string());
    outside_profile_warning(path, Path::new(&profile), &user)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_under_the_profile_folder_is_private_and_one_elsewhere_is_warned_about() {
        let top = std::env::temp_dir().join(format!("bansha-private-{}", std::process::id()));
        let home = top.join("Users").join("导演 甲");
        let elsewhere = top.join("版杀 游戏");
        for d in [&home, &elsewhere] {
            std::fs::create_dir_all(d).unwrap();
        }
        let inside = home.join("bansha").join("cookies.txt");
        std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
        std::fs::write(&inside, "x").unwrap();
        let outside = elsewhere.join("cookies.txt");
        std::fs::write(&outside, "x").unwrap();

        assert_eq!(outside_profile_warning(&inside, &home, "director"), None);
        let w = outside_profile_warning(&outside, &home, "director").unwrap();
        assert!(
            w.contains("版杀 游戏") && w.contains("outside your user folder"),
            "{w}"
        );
        assert!(
            w.contains(&format!("icacls \"{}\" /inheritance:r", outside.display()))
                && w.contains("/grant:r \"director:F\""),
            "{w}"
        );
        // A path that climbs out of the profile through `..` is outside.
        let climbing = home
            .join("..")
            .join("..")
            .join("版杀 游戏")
            .join("cookies.txt");
        assert!(outside_profile_warning(&climbing, &home, "director").is_some());
        std::fs::remove_dir_all(&top).unwrap();
    }

    #[test]
    fn a_file_that_does_not_exist_is_judged_by_its_spelling() {
        let home = Path::new("/nonexistent-bansha/Users/director");
        assert_eq!(
            outside_profile_warning(&home.join("cookies.txt"), home, "director"),
            None
        );
        assert!(outside_profile_warning(Path::new("/elsewhere/cookies.txt"), home, "d").is_some());
    }
}
