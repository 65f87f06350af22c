//! The page's share-out of split models' parts to its pool of Web Workers
//! (`runtime::FromWorker::Split`): which parts wait, which are out, which
//! are in, and the `Assemble` request after each part comes back. Free of
//! web crates, so it is tested natively.

use crate::models::Unavailable;
use crate::worker::{encode, ToWorker};

/// One part handed to a pool worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handout {
    pub id: u64,
    pub model: String,
    pub part: u32,
}

struct Job {
    model: String,
    parts: Vec<Option<String>>,
    /// Parts not handed out yet are `next..`; `again` holds parts whose
    /// worker was stopped before answering.
    next: u32,
    again: Vec<u32>,
    failed: bool,
}

/// The split models of the newest request.
#[derive(Default)]
pub struct Splits {
    id: u64,
    jobs: Vec<Job>,
}

impl Splits {
    /// Request `id`'s `model` computes in `parts` parts (a newer request
    /// drops what an older one left).
    pub fn split(&mut self, id: u64, model: &str, parts: u32) {
        if id != self.id {
            self.clear();
            self.id = id;
        }
        self.jobs.retain(|j| j.model != model);
        self.jobs.push(Job {
            model: model.to_string(),
            parts: vec![None; parts as usize],
            next: 0,
            again: Vec::new(),
            failed: false,
        });
    }

    /// The next part to compute, lost ones first, then in order (the
    /// first parts stream to the page first).
    pub fn take(&mut self) -> Option<Handout> {
        let id = self.id;
        self.jobs.iter_mut().find_map(|j| {
            if j.failed {
                return None;
            }
            let part = match j.again.pop() {
                Some(k) => k,
                None if (j.next as usize) < j.parts.len() => {
                    j.next += 1;
                    j.next - 1
                }
                None => return None,
            };
            Some(Handout {
                id,
                model: j.model.clone(),
                part,
            })
        })
    }

    /// A worker holding `h` was stopped: hand the part out again.
    pub fn lost(&mut self, h: &Handout) {
        if h.id != self.id {
            return;
        }
        if let Some(j) = self.jobs.iter_mut().find(|j| j.model == h.model) {
            if j.parts.get(h.part as usize).is_some_and(Option::is_none)
                && !j.again.contains(&h.part)
            {
                j.again.push(h.part);
            }
        }
    }

    /// A part came back: the `ToWorker::Assemble` request that turns the
    /// parts so far into the model's report (none for an older request).
    pub fn done(&mut self, h: &Handout, text: Result<String, Unavailable>) -> Option<String> {
        if h.id != self.id {
            return None;
        }
        let j = self.jobs.iter_mut().find(|j| j.model == h.model)?;
        if j.failed {
            return None;
        }
        let failed = match text {
            Ok(t) => {
                *j.parts.get_mut(h.part as usize)? = Some(t);
                None
            }
            Err(why) => {
                j.failed = true;
                Some(why)
            }
        };
        Some(encode(&ToWorker::Assemble {
            id: self.id,
            model: j.model.clone(),
            parts: j.parts.clone(),
            failed,
        }))
    }

    /// The model's whole report arrived: its job is over.
    pub fn answered(&mut self, id: u64, model: &str) {
        if id == self.id {
            self.jobs.retain(|j| j.model != model);
        }
    }

    /// Whether request `id` still waits for a split model's report.
    pub fn pending(&self, id: u64) -> bool {
        id == self.id && !self.jobs.is_empty()
    }

    pub fn clear(&mut self) {
        self.jobs.clear();
    }
}
