//! What every result is stamped with: the commit the binary was built from and the UTC time.

/// The git commit the binary was built from (stamped by the library's build.rs), or "unknown".
pub fn commit() -> &'static str {
    kernel_lab_bench::runtime::BUILD_COMMIT.unwrap_or("unknown")
}

/// UTC now as `YYYY-MM-DDTHH:MM:SSZ` (no date crate needed).
pub fn utc_now() -> String {
    utc(kernel_lab_bench::runtime::timing::unix_ms_now())
}

/// `unix_ms` (UTC milliseconds since the Unix epoch) as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let (y, m, d) = kernel_lab_bench::runtime::timing::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}


#[cfg(test)]
mod tests {
    #[test]
    fn utc_now_is_iso8601() {
        let s = super::utc_now();
        assert_eq!(s.len(), 20);
        assert!(s.starts_with("20") && s.ends_with('Z') && &s[10..11] == "T");
        assert_eq!(super::utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::utc(1_795_674_516_551), "2026-11-26T06:28:36Z", "a tuning of session 25");
        assert_eq!(super::utc(951_782_400_000), "2000-02-29T00:00:00Z", "a leap day");
    }
}
