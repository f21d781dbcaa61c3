//! The mount table: every mount point, which a factory reset must not remove or reach into.
//!
//! Read from `/proc/self/mountinfo`, which lists bind mounts too (a bind mount of a folder on
//! the same filesystem has the same device id as its parent, so comparing device ids alone would
//! miss it). Parsing is pure; [`read`] is the one read of the system file.

use std::path::PathBuf;

use crate::error::{Error, Result};

const MOUNTINFO: &str = "/proc/self/mountinfo";

/// Every mount point of this process's mount namespace, as host paths.
pub(crate) fn read() -> Result<Vec<PathBuf>> {
    let text = std::fs::read_to_string(MOUNTINFO).map_err(|e| {
        Error::input(
            "mount_table_unreadable",
            format!("cannot read the mount table {MOUNTINFO}"),
        )
        .cause(e.to_string())
        .hint("nothing was deleted; a reset checks that no path it removes is a mount point, and needs /proc for that")
    })?;
    Ok(parse(&text))
}

/// The mount points of a mountinfo text: the fifth field of each line, with the kernel's octal
/// escapes (`\040` for a space) decoded.
pub(crate) fn parse(text: &str) -> Vec<PathBuf> {
    text.lines()
        .filter_map(|line| line.split(' ').nth(4))
        .map(|field| PathBuf::from(unescape(field)))
        .collect()
}

fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b))
        {
            let digit = |b: u8| u32::from(b - b'0');
            let v = digit(bytes[i + 1]) * 64 + digit(bytes[i + 2]) * 8 + digit(bytes[i + 3]);
            out.push(v as u8);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_points_with_escapes() {
        let text = "\
22 1 0:21 / /proc rw,nosuid shared:12 - proc proc rw
98 29 0:48 / /tmp/x/device/root/.openclaw/workspace/memory rw,relatime - tmpfs tmpfs rw
99 29 8:1 /data /tmp/with\\040space rw - ext4 /dev/sda1 rw
";
        assert_eq!(
            parse(text),
            vec![
                PathBuf::from("/proc"),
                PathBuf::from("/tmp/x/device/root/.openclaw/workspace/memory"),
                PathBuf::from("/tmp/with space"),
            ]
        );
    }
}
