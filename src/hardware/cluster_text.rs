//! Clusters written as people write them: "2× p3.2xlarge + 1× g4dn.4xlarge".
//! spotDNN's measurements and plans and Stash's configurations read them.

/// Why a cluster's text does not read, quoting the part at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClusterTextError {
    #[error("\"{text}\" is not a cluster: write it as 2× p3.2xlarge + 1× g4dn.4xlarge")]
    NotACluster { text: String },
    #[error("\"{part}\": the count is too large")]
    CountTooLarge { part: String },
    #[error("\"{part}\" names no instance type")]
    NoType { part: String },
    #[error("\"{part}\": a count must be at least 1")]
    ZeroCount { part: String },
}

/// Reads a cluster written as "2× p3.2xlarge + 1× g4dn.4xlarge" ("2x",
/// "2 *" and a bare name for one also read) into (type, count) pairs, one
/// per type.
pub fn parse_cluster(text: &str) -> Result<Vec<(String, u32)>, ClusterTextError> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for part in text.split('+') {
        let part = part.trim();
        if part.is_empty() {
            return Err(ClusterTextError::NotACluster {
                text: text.to_string(),
            });
        }
        let digits = part
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(part.len());
        let (count, rest) = if digits == 0 {
            (1, part)
        } else {
            let count: u32 =
                part[..digits]
                    .parse()
                    .map_err(|_| ClusterTextError::CountTooLarge {
                        part: part.to_string(),
                    })?;
            let rest = part[digits..].trim_start();
            let rest = rest
                .strip_prefix(['×', '*'])
                .or_else(|| rest.strip_prefix(['x', 'X']).filter(|r| r.starts_with(' ')))
                .unwrap_or(rest);
            (count, rest.trim())
        };
        if rest.is_empty() {
            return Err(ClusterTextError::NoType {
                part: part.to_string(),
            });
        }
        if count == 0 {
            return Err(ClusterTextError::ZeroCount {
                part: part.to_string(),
            });
        }
        match out.iter_mut().find(|(n, _)| n == rest) {
            Some((_, c)) => *c = c.saturating_add(count),
            None => out.push((rest.to_string(), count)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_read_as_plans_are_written() {
        let two =
            |a: &str, x: u32, b: &str, y: u32| Ok(vec![(a.to_string(), x), (b.to_string(), y)]);
        assert_eq!(
            parse_cluster("2× p3.2xlarge + 1× g4dn.4xlarge"),
            two("p3.2xlarge", 2, "g4dn.4xlarge", 1)
        );
        assert_eq!(
            parse_cluster("2x p3.2xlarge+g3.4xlarge"),
            two("p3.2xlarge", 2, "g3.4xlarge", 1)
        );
        assert_eq!(
            parse_cluster("3*p2.xlarge"),
            Ok(vec![("p2.xlarge".to_string(), 3)])
        );
        assert_eq!(parse_cluster("1× a + 2× a"), Ok(vec![("a".to_string(), 3)]));
        assert!(parse_cluster("").is_err());
        assert_eq!(
            parse_cluster("0× a").map_err(|e| e.to_string()),
            Err("\"0× a\": a count must be at least 1".to_string())
        );
        assert!(parse_cluster("2× ").is_err());
        assert_eq!(
            parse_cluster("a + + b").map_err(|e| e.to_string()),
            Err(
                "\"a + + b\" is not a cluster: write it as 2× p3.2xlarge + 1× g4dn.4xlarge"
                    .to_string()
            )
        );
    }
}
