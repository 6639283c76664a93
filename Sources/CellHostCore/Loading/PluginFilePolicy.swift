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
        if let problem = problem(directory: directory, user: user) { return problem }
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return problem(file: file, owner: info.st_uid, mode: info.st_mode, user: user)
    }

    /// Why plugins in `directory` are refused to `user` (the effective user
    /// id), or nil. The loader asks once per directory, not once per file.
    static func problem(directory: String, user: uid_t) -> String? {
        var info = stat()
        guard stat(directory, &info) == 0 else { return nil }
        return problem(path: directory, shown: "its directory \(directory)", owner: info.st_uid, mode: info.st_mode, user: user)
    }

    /// Why `file`, owned by `owner` with `mode` (what `stat` says), is
    /// refused to `user`, or nil (its directory is checked separately).
    static func problem(file: String, owner: uid_t, mode: mode_t, user: uid_t) -> String? {
        problem(path: file, shown: "the file", owner: owner, mode: mode, user: user)
    }

    private static func problem(path: String, shown: String, owner: uid_t, mode: mode_t, user: uid_t) -> String? {
        if owner != 0 && owner != user {
            return "refused: \(shown) is owned by uid \(owner), not by root or you (uid \(user)); "
                + "fix with `chown \(user) '\(path)'`, or pass --allow-insecure-plugins"
        }
        if mode & (S_IWGRP | S_IWOTH) != 0 {
            return "refused: \(shown) is writable by group or others; fix with `chmod go-w '\(path)'`, "
                + "or pass --allow-insecure-plugins"
        }
        return nil
    }
}
