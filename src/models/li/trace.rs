//! The synthetic trace as Chrome Trace Event JSON, which Perfetto
//! (ui.perfetto.dev) and chrome://tracing open: one process per worker,
//! one thread per resource, one complete event (`"ph": "X"`, µs) per op
//! or HTTP/2 chunk in service.

use std::borrow::Cow;
use std::collections::HashSet;

use serde::Serialize;
use serde_json::json;

use super::profile::Profile;
use super::sim::{Lane, Outcome};

/// Thread id and name of a lane.
fn thread(lane: Lane) -> (u32, String) {
    match lane {
        Lane::Down(i) => (1 + u32::from(i), format!("downlink PS{}", i + 1)),
        Lane::Worker => (100, "worker".into()),
        Lane::Up(i) => (200 + u32::from(i), format!("uplink PS{}", i + 1)),
        Lane::Ps(i) => (300 + u32::from(i), format!("PS{} update", i + 1)),
        Lane::Delay => (400, "parse delay".into()),
    }
}

/// One op or chunk in service, as Perfetto reads it (the fields in the
/// order the file has always had them).
#[derive(Serialize)]
struct Slice<'a> {
    name: Cow<'a, str>,
    cat: &'a str,
    ph: &'static str,
    ts: f64,
    dur: f64,
    pid: u32,
    tid: u32,
    args: Step,
}

#[derive(Serialize)]
struct Step {
    step: u32,
}

/// The trace's JSON, written event by event: a timeline's 200,000 slices
/// are not built as a tree of values first.
pub fn chrome_trace(profile: &Profile, o: &Outcome) -> String {
    let mut out: Vec<u8> = br#"{"traceEvents":["#.to_vec();
    // (process, thread) named so far; a set, as 4,096 PS make 12,289
    // threads per worker.
    let mut named: HashSet<(u32, u32)> = HashSet::new();
    for g in &o.segments {
        let pid = g.worker + 1;
        let (tid, tname) = thread(g.lane);
        if named.insert((pid, 0)) {
            event(
                &mut out,
                &json!({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": format!("worker {pid}")}}),
            );
        }
        if named.insert((pid, tid)) {
            event(
                &mut out,
                &json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": tname}}),
            );
        }
        let op = profile.ops.get(g.op as usize);
        let name = op.map_or("op", |o| o.name.as_str());
        event(
            &mut out,
            &Slice {
                name: if g.parse {
                    Cow::Owned(format!("parse {name}"))
                } else {
                    Cow::Borrowed(name)
                },
                cat: if g.parse {
                    "parse"
                } else {
                    op.map_or("", |o| o.resource.word())
                },
                ph: "X",
                ts: g.start * 1e6,
                dur: (g.end - g.start) * 1e6,
                pid,
                tid,
                args: Step { step: g.step },
            },
        );
    }
    out.extend_from_slice(br#"],"displayTimeUnit":"ms"}"#);
    String::from_utf8(out).unwrap_or_default()
}

/// Appends `e` to the event list in `out` (after a comma unless first).
fn event<T: Serialize>(out: &mut Vec<u8>, e: &T) {
    if out.last() != Some(&b'[') {
        out.push(b',');
    }
    // Writing to memory fails only for a value JSON cannot hold; these
    // are strings and numbers.
    let _ = serde_json::to_writer(out, e);
}
