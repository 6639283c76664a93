import Glibc

/// Refuses plugin files that someone other than root or the current user
/// could have written, the way OpenSSH's `StrictModes` refuses key files: a
/// plugin runs with the user's rights, so a file (or its directory) that is
/// writable by group or others, or owned by another user, is a way in.
///
/// Checked: the plugin file (symbolic links followed) and the directory that
/// holds it. `--allow-insecure-plugins` turns the check off.
public enum PluginFilePolicy {
    /// Why `file` in `directory` is refused, or nil when it is acceptable.
    /// A file that cannot be stat'ed is left to the loader to report.
    public static func problem(file: String, directory: String) -> String? {
        let user = geteuid()
        for (path, what) in [(directory, "its directory"), (file, "the file")] {
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            let shown = what == "the file" ? "the file" : "its directory \(path)"
            if info.st_uid != 0 && info.st_uid != user {
                return "refused: \(shown) is owned by uid \(info.st_uid), not by root or you (uid \(user)); "
                    + "fix with `chown \(user) '\(path)'`, or pass --allow-insecure-plugins"
            }
            if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
                return "refused: \(shown) is writable by group or others; fix with `chmod go-w '\(path)'`, "
                    + "or pass --allow-insecure-plugins"
            }
        }
        return nil
    }
}
