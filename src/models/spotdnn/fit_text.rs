//! The fit measurements as the page's text boxes hold them: CSV rows (a
//! header row and `#` comments allowed), one box per fit, read into the
//! scenario's rows and written back from them.
//!
//! - memory: `batch per GPU, memory in use [GB]`
//! - speeds: `cluster, global steps/s`
//! - loss:   `cluster, global step, loss`
//!
//! Numbers are written back in full (Rust's shortest exact form), so
//! editing a box and leaving it never rounds the rows it already held.

use super::section::{LossPoint, MemoryPoint, SpeedPoint};
use crate::workload::text::{csv_number as number, csv_rows, CsvError};

fn rows(text: &str, cols: usize) -> Result<Vec<(usize, Vec<String>)>, CsvError> {
    csv_rows(text, cols, cols)
}

pub fn parse_memory(text: &str) -> Result<Vec<MemoryPoint>, CsvError> {
    rows(text, 2)?
        .into_iter()
        .map(|(l, f)| {
            Ok(MemoryPoint {
                batch: number(l, "batch", &f[0])?,
                bytes: number(l, "memory [GB]", &f[1])? * 1e9,
            })
        })
        .collect()
}

pub fn format_memory(rows: &[MemoryPoint]) -> String {
    rows.iter()
        .map(|p| format!("{}, {}\n", p.batch, p.bytes / 1e9))
        .collect()
}

pub fn parse_speeds(text: &str) -> Result<Vec<SpeedPoint>, CsvError> {
    rows(text, 2)?
        .into_iter()
        .map(|(l, f)| {
            Ok(SpeedPoint {
                cluster: f[0].clone(),
                steps_per_s: number(l, "speed [global steps/s]", &f[1])?,
            })
        })
        .collect()
}

pub fn format_speeds(rows: &[SpeedPoint]) -> String {
    rows.iter()
        .map(|p| format!("{}, {}\n", p.cluster, p.steps_per_s))
        .collect()
}

pub fn parse_loss(text: &str) -> Result<Vec<LossPoint>, CsvError> {
    rows(text, 3)?
        .into_iter()
        .map(|(l, f)| {
            Ok(LossPoint {
                cluster: f[0].clone(),
                iteration: number(l, "global step", &f[1])?,
                loss: number(l, "loss", &f[2])?,
            })
        })
        .collect()
}

pub fn format_loss(rows: &[LossPoint]) -> String {
    rows.iter()
        .map(|p| format!("{}, {}, {}\n", p.cluster, p.iteration, p.loss))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_read_with_a_header_and_comments_and_round_trip() {
        let m = parse_memory("batch, memory [GB]\n# one GPU\n64, 1.84\n128, 2.4812345\n").unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].bytes, 2.4812345e9);
        assert_eq!(format_memory(&m[..1]), "64, 1.84\n");
        assert_eq!(parse_memory(&format_memory(&m)).unwrap(), m);
        let s = parse_speeds("9× g3.8xlarge, 4.1\n1× a + 2× b, 3").unwrap();
        assert_eq!(s[1].cluster, "1× a + 2× b");
        assert_eq!(parse_speeds(&format_speeds(&s)).unwrap(), s);
        let l = parse_loss("cluster, step, loss\n2× a, 0, 2.5\n2× a, 1000, 1.912345678\n").unwrap();
        assert_eq!(parse_loss(&format_loss(&l)).unwrap(), l);
    }

    #[test]
    fn bad_rows_name_their_line() {
        assert_eq!(
            parse_memory("64, 1.8\n128\n").unwrap_err().to_string(),
            "line 2: 1 fields, expected 2"
        );
        assert_eq!(
            parse_loss("2× a, x, 1\n").unwrap_err().to_string(),
            "line 1: the global step \"x\" is not a number"
        );
        assert!(parse_speeds("a, inf\n").is_err());
    }
}
