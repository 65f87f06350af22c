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

use crate::errors::ReadError;

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
    /// cycles, amounts that are negative or not numbers, a step of the
    /// wrong length, no steps at all.
    pub fn validate(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let n = self.ops.len();
        if n == 0 {
            errs.push(format!("profile '{}' has no ops", self.name));
        }
        if n > MAX_OPS {
            errs.push(format!("{n} ops is more than the {MAX_OPS} accepted"));
        }
        if self.steps.is_empty() {
            errs.push(format!("profile '{}' has no profiled steps", self.name));
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
        for (i, op) in self.ops.iter().enumerate() {
            for &d in &op.deps {
                if d as usize >= n {
                    errs.push(format!(
                        "op {i} '{}' waits for op {d}, which does not exist ({n} ops)",
                        op.name
                    ));
                } else if d as usize == i {
                    errs.push(format!("op {i} '{}' waits for itself", op.name));
                }
            }
        }
        if errs.is_empty() {
            if let Some(cycle) = self.cycle() {
                errs.push(format!(
                    "the ops wait for each other in a cycle: {}",
                    cycle
                        .iter()
                        .map(|&i| format!("'{}'", self.ops[i].name))
                        .collect::<Vec<_>>()
                        .join(" → ")
                ));
            }
        }
        for (k, row) in self.steps.iter().enumerate() {
            if row.len() != n {
                errs.push(format!(
                    "profiled step {} has {} amounts for {n} ops",
                    k + 1,
                    row.len()
                ));
                continue;
            }
            if let Some((i, v)) = row
                .iter()
                .enumerate()
                .find(|(_, v)| !(v.is_finite() && **v >= 0.0))
            {
                let what = if self.ops[i].resource.is_link() {
                    "bytes"
                } else {
                    "seconds"
                };
                errs.push(format!(
                    "profiled step {}, op {i} '{}': {v} {what} is not a number of {what} (0 or more)",
                    k + 1,
                    self.ops[i].name
                ));
            }
        }
        errs
    }

    /// A cycle of dependencies, if any (Kahn's algorithm; the ops left
    /// over all sit on or behind a cycle, which is then walked).
    fn cycle(&self) -> Option<Vec<usize>> {
        let n = self.ops.len();
        let mut indeg: Vec<usize> = self.ops.iter().map(|o| o.deps.len()).collect();
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, o) in self.ops.iter().enumerate() {
            for &d in &o.deps {
                dependents[d as usize].push(i);
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
        // Walk back along unfinished dependencies until an op repeats.
        let mut at = (0..n).find(|&i| indeg[i] > 0)?;
        let mut path = vec![at];
        loop {
            let next = self.ops[at]
                .deps
                .iter()
                .map(|&d| d as usize)
                .find(|&d| indeg[d] > 0)?;
            if let Some(p) = path.iter().position(|&x| x == next) {
                let mut c: Vec<usize> = path[p..].to_vec();
                c.reverse();
                return Some(c);
            }
            path.push(next);
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
            e.contains("cycle: 'a' → 'b' → 'c'")
                || e.contains("cycle: 'c' → 'a' → 'b'")
                || e.contains("cycle: 'b' → 'c' → 'a'"),
            "{e}"
        );
        assert!(e.contains("profiled step 2, op 1 'b': -1 seconds"), "{e}");
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
}
