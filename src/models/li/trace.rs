//! The synthetic trace as Chrome Trace Event JSON, which Perfetto
//! (ui.perfetto.dev) and chrome://tracing open: one process per worker,
//! one thread per resource, one complete event (`"ph": "X"`, µs) per op
//! or HTTP/2 chunk in service.

use serde_json::{json, Value};

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

pub fn chrome_trace(profile: &Profile, o: &Outcome) -> String {
    let mut events: Vec<Value> = Vec::new();
    let mut named: Vec<(u32, u32)> = Vec::new();
    for g in &o.segments {
        let pid = g.worker + 1;
        let (tid, tname) = thread(g.lane);
        if !named.contains(&(pid, 0)) {
            named.push((pid, 0));
            events.push(json!({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": format!("worker {pid}")}}));
        }
        if !named.contains(&(pid, tid)) {
            named.push((pid, tid));
            events.push(json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": tname}}));
        }
        let op = profile.ops.get(g.op as usize);
        let name = op.map_or("op", |o| o.name.as_str());
        events.push(json!({
            "name": if g.parse { format!("parse {name}") } else { name.to_string() },
            "cat": if g.parse { "parse" } else { op.map_or("", |o| o.resource.word()) },
            "ph": "X",
            "ts": g.start * 1e6,
            "dur": (g.end - g.start) * 1e6,
            "pid": pid,
            "tid": tid,
            "args": {"step": g.step},
        }));
    }
    json!({"traceEvents": events, "displayTimeUnit": "ms"}).to_string()
}
