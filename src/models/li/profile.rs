//! A one-worker, one-PS profile (Li et al. Sec. 2): the op graph of one
//! SGD step, the same in every step, and the amounts measured in each of
//! K profiled steps (seconds for compute, bytes for transfers).
//!
//! JSON (docs/li.md):
//! ```json
//! { "name": "4-layer DNN", "batch": 32,
//!   "ops": [ {"name": "recv w0", "resource": "downlink", "tensor": "w0"},
//!            {"name": "fwd 0", "resource": "worker", "deps": [0]} ],
//!   "steps": [[4.0e6, 0.012], [4.0e6, 0.013]] }
//! ```

use serde::{Deserialize, Serialize};

use crate::bounds::Bounds;
use crate::errors::ReadError;
use crate::report::fmt_count;

/// Bytes per value moved (FP32).
pub const BYTES_PER_VALUE: f64 = 4.0;

/// The resource an op uses (Sec. 2): the PS's sending channel, the
/// worker's compute, the PS's receiving channel, the PS's compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    Downlink,
    Worker,
    Uplink,
    Ps,
}

impl Resource {
    pub fn word(self) -> &'static str {
        match self {
            Resource::Downlink => "downlink",
            Resource::Worker => "worker",
            Resource::Uplink => "uplink",
            Resource::Ps => "ps",
        }
    }

    /// A transfer (bytes) rather than a computation (seconds).
    pub fn is_link(self) -> bool {
        matches!(self, Resource::Downlink | Resource::Uplink)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Op {
    pub name: String,
    pub resource: Resource,
    /// Ops of the same step this one waits for (their indices).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deps: Vec<u32>,
    /// The variable it moves or updates; with several PS, a tensor's ops
    /// go to the PS its variable is placed on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tensor: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub name: String,
    /// Samples per step of one worker.
    pub batch: u32,
    pub ops: Vec<Op>,
    /// One row per profiled step, one amount per op: seconds for worker
    /// and ps ops, bytes for downlink and uplink ops.
    pub steps: Vec<Vec<f64>>,
}

/// Most ops in a step and most profiled steps the page accepts.
pub const MAX_OPS: usize = 100_000;
pub const MAX_STEPS: usize = 10_000;

/// A compute op's time per step [s]: 0, or 1 fs to 10⁶ s (11.6 days). No
/// op is shorter than a femtosecond; with the floor no ratio of times
/// (samples/s) overflows, with the top no sum of a run's times does.
pub const SECONDS: Bounds = Bounds::shown(0.0, 1e6, 1.0, "s").or_zero_from(1e-15);
/// A transfer's size per step [B]: 0, or 10⁻¹⁵ B to 1 TB (sizes estimated
/// from a trace's durations may be fractions of a byte).
pub const BYTES: Bounds = Bounds::shown(0.0, 1e12, 1.0, "B").or_zero_from(1e-15);

/// The range of an amount on `r`: bytes on a link, else seconds.
pub fn amount_bounds(r: Resource) -> Bounds {
    if r.is_link() {
        BYTES
    } else {
        SECONDS
    }
}

/// What an amount on `r` is, in messages.
fn amount_what(r: Resource) -> &'static str {
    if r.is_link() {
        "its size"
    } else {
        "its time"
    }
}

/// Problems of one kind listed in full before the rest are counted.
const LISTED: usize = 8;
/// Ops a cycle's message names before "…".
const CYCLE_NAMES: usize = 6;
/// Characters of a name a message repeats.
const NAME_CHARS: usize = 24;

/// `name` cut to `NAME_CHARS` characters, so messages stay short.
fn short(name: &str) -> String {
    match name.char_indices().nth(NAME_CHARS - 1) {
        Some((cut, _)) if name.chars().count() > NAME_CHARS => format!("{}…", &name[..cut]),
        _ => name.to_string(),
    }
}

/// The first `LISTED` problems of one kind, and how many more there were.
#[derive(Default)]
struct Listed {
    shown: Vec<String>,
    more: usize,
}

impl Listed {
    /// Adds a problem (its message made only if it is listed).
    fn push(&mut self, message: impl FnOnce() -> String) {
        if self.shown.len() < LISTED {
            self.shown.push(message());
        } else {
            self.more += 1;
        }
    }

    /// Into `errs`, with "… and 91,992 more <what>" after the listed.
    fn close(self, what: &str, errs: &mut Vec<String>) {
        errs.extend(self.shown);
        if self.more > 0 {
            errs.push(format!("… and {} more {what}", fmt_count(self.more as f64)));
        }
    }
}

impl Profile {
    /// A profile file's text, read and checked: its first problem, if any.
    pub fn from_json(text: &str) -> Result<Profile, ReadError> {
        let p: Profile = serde_json::from_str(text).map_err(|e| format!("not a profile: {e}"))?;
        match p.validate().into_iter().next() {
            Some(problem) => Err(ReadError::Content(problem)),
            None => Ok(p),
        }
    }

    /// A content hash (64-bit FNV-1a of the profile's JSON, 16 hex digits):
    /// the same ops and amounts give the same hash whatever the file's
    /// layout. It recognises a file, it does not protect against forgery.
    pub fn content_hash(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in json.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }

    /// Every problem, each naming the op or step: unknown dependencies,
    /// cycles, amounts out of their range, a step of the wrong length, no
    /// steps at all. Each kind lists its first `LISTED` and counts the
    /// rest, so a bad 100,000-op file gives a short answer.
    pub fn validate(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let n = self.ops.len();
        if n == 0 {
            errs.push(format!("profile '{}' has no ops", short(&self.name)));
        }
        if n > MAX_OPS {
            errs.push(format!("{n} ops is more than the {MAX_OPS} accepted"));
        }
        if self.steps.is_empty() {
            errs.push(format!(
                "profile '{}' has no profiled steps",
                short(&self.name)
            ));
        }
        if self.steps.len() > MAX_STEPS {
            errs.push(format!(
                "{} profiled steps is more than the {MAX_STEPS} accepted",
                self.steps.len()
            ));
        }
        if self.batch == 0 {
            errs.push("the batch must be at least 1 sample".into());
        }
        let mut deps = Listed::default();
        for (i, op) in self.ops.iter().enumerate() {
            for &d in &op.deps {
                if d as usize >= n {
                    deps.push(|| {
                        format!(
                            "op {i} '{}' waits for op {d}, which does not exist ({n} ops)",
                            short(&op.name)
                        )
                    });
                } else if d as usize == i {
                    deps.push(|| format!("op {i} '{}' waits for itself", short(&op.name)));
                }
            }
        }
        deps.close("dependencies on no op or on the op itself", &mut errs);
        if errs.is_empty() {
            if let Some(cycle) = self.cycle() {
                errs.push(self.cycle_message(&cycle));
            }
        }
        let mut rows = Listed::default();
        for (k, row) in self.steps.iter().enumerate() {
            if row.len() != n {
                rows.push(|| {
                    format!(
                        "profiled step {} has {} amounts for {n} ops",
                        k + 1,
                        row.len()
                    )
                });
                continue;
            }
            let bad = row
                .iter()
                .zip(&self.ops)
                .position(|(&v, op)| !amount_bounds(op.resource).contains(v));
            if let Some(i) = bad {
                let op = &self.ops[i];
                rows.push(|| {
                    format!(
                        "profiled step {}, op {i} '{}': {}",
                        k + 1,
                        short(&op.name),
                        amount_bounds(op.resource).message(amount_what(op.resource), row[i])
                    )
                });
            }
        }
        rows.close("profiled steps with a problem", &mut errs);
        errs
    }

    /// "the ops wait for each other in a cycle: 'a' → 'b' → … → 'a'
    /// (1,204 ops in the cycle)": at most `CYCLE_NAMES` ops named, from the
    /// one of lowest index, each waiting for the one before it.
    fn cycle_message(&self, cycle: &[usize]) -> String {
        let first = (0..cycle.len()).min_by_key(|&k| cycle[k]).unwrap_or(0);
        let name = |k: usize| format!("'{}'", short(&self.ops[cycle[k % cycle.len()]].name));
        let mut shown: Vec<String> = (first..first + cycle.len().min(CYCLE_NAMES))
            .map(name)
            .collect();
        if cycle.len() > CYCLE_NAMES {
            shown.push("…".into());
        }
        shown.push(name(first));
        format!(
            "the ops wait for each other in a cycle: {} ({} ops in the cycle)",
            shown.join(" → "),
            fmt_count(cycle.len() as f64)
        )
    }

    /// A cycle of dependencies, if any, each op waiting for the one before
    /// it: Kahn's algorithm, then a walk back from an op left over (each
    /// waits for another left over) until one repeats. Linear in ops and
    /// dependencies (deps must exist and not be the op itself).
    fn cycle(&self) -> Option<Vec<usize>> {
        let n = self.ops.len();
        let mut indeg: Vec<usize> = self.ops.iter().map(|o| o.deps.len()).collect();
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, o) in self.ops.iter().enumerate() {
            for &d in &o.deps {
                dependents.get_mut(d as usize)?.push(i);
            }
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
        let mut seen = 0;
        while let Some(i) = ready.pop() {
            seen += 1;
            for &j in &dependents[i] {
                indeg[j] -= 1;
                if indeg[j] == 0 {
                    ready.push(j);
                }
            }
        }
        if seen == n {
            return None;
        }
        // Where each op sits on the walk (usize::MAX: not on it), so a
        // repeat is found in one look, not by searching the walk.
        let mut at_step = vec![usize::MAX; n];
        let mut at = (0..n).find(|&i| indeg[i] > 0)?;
        let mut path = Vec::new();
        loop {
            at_step[at] = path.len();
            path.push(at);
            let next = self.ops[at]
                .deps
                .iter()
                .map(|&d| d as usize)
                .find(|&d| indeg[d] > 0)?;
            if at_step[next] != usize::MAX {
                let mut c = path[at_step[next]..].to_vec();
                c.reverse();
                return Some(c);
            }
            at = next;
        }
    }

    /// Mean over the profiled steps of one op's amount.
    pub fn mean_amount(&self, op: usize) -> f64 {
        let k = self.steps.len().max(1) as f64;
        self.steps
            .iter()
            .map(|s| s.get(op).copied().unwrap_or(0.0))
            .sum::<f64>()
            / k
    }

    /// Mean bytes per step over `resource` (a link).
    pub fn mean_bytes(&self, resource: Resource) -> f64 {
        (0..self.ops.len())
            .filter(|&i| self.ops[i].resource == resource)
            .map(|i| self.mean_amount(i))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(name: &str, resource: Resource, deps: &[u32]) -> Op {
        Op {
            name: name.into(),
            resource,
            deps: deps.to_vec(),
            tensor: None,
        }
    }

    #[test]
    fn bad_profiles_name_the_op_or_step() {
        let p = Profile {
            name: "p".into(),
            batch: 1,
            ops: vec![
                op("a", Resource::Downlink, &[2]),
                op("b", Resource::Worker, &[0]),
                op("c", Resource::Uplink, &[1]),
            ],
            steps: vec![vec![1.0, 1.0, 1.0], vec![1.0, -1.0, 1.0], vec![1.0]],
        };
        let e = p.validate().join("\n");
        assert!(
            e.contains("cycle: 'a' → 'b' → 'c' → 'a' (3 ops in the cycle)"),
            "{e}"
        );
        assert!(
            e.contains("profiled step 2, op 1 'b': its time must be 0 or between 1e-15 and 1,000,000 s (got −1 s)"),
            "{e}"
        );
        assert!(e.contains("profiled step 3 has 1 amounts for 3 ops"), "{e}");
        let q = Profile {
            ops: vec![op("a", Resource::Worker, &[5])],
            steps: vec![],
            ..p
        };
        let e = q.validate().join("\n");
        assert!(e.contains("waits for op 5, which does not exist"), "{e}");
        assert!(e.contains("no profiled steps"), "{e}");
    }

    #[test]
    fn long_names_and_many_problems_stay_short() {
        let long = "x".repeat(1000);
        let ops: Vec<Op> = (0..100)
            .map(|i| op(&long, Resource::Worker, &[1000 + i]))
            .collect();
        let p = Profile {
            name: "p".into(),
            batch: 1,
            steps: vec![vec![2e6; 100]; 50],
            ops,
        };
        let e = p.validate();
        // Eight of each kind, then a count of the rest.
        assert_eq!(e.len(), 18, "{e:?}");
        assert!(e[8].contains("and 92 more dependencies"), "{}", e[8]);
        assert!(e[17].contains("and 42 more profiled steps"), "{}", e[17]);
        assert!(e.iter().all(|m| m.len() < 200), "{e:?}");
        assert!(e[9].contains("(got 2000000 s)"), "{}", e[9]);
    }
}
