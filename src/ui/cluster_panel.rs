//! The cluster: worker groups drawn from the catalog, and the parameter
//! servers (nodes, instance, link) every model reads the same way.

use leptos::prelude::*;

use super::expect_state;
use super::fields::{gradual, FieldErrors, NumberField, OptNumberField, ShowMore, PAGE_ROWS};
use super::instance_select::InstanceSelect;
use crate::hardware::presets::link_presets;
use crate::hardware::{bytes_to_gbit_per_s, gbit_per_s_to_bytes, WorkerGroup};

#[component]
pub fn ClusterPanel() -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let group_count = Memo::new(move |_| sc.with(|s| s.hardware.cluster.workers.len()));
    // Too many workers in all is said at the count that adds the most.
    let largest = Memo::new(move |_| {
        sc.with(|s| {
            let w = &s.hardware.cluster.workers;
            (0..w.len()).max_by_key(|&k| (w[k].count, std::cmp::Reverse(k)))
        })
    });
    let shown = RwSignal::new(PAGE_ROWS);
    let built = gradual(
        Signal::derive(move || group_count.get().min(shown.get())),
        8,
    );
    let add = move |_| {
        sc.update(|s| {
            // The last group's device (adding one more of what is there),
            // else the catalog's first.
            let instance = s
                .hardware
                .cluster
                .workers
                .last()
                .map(|g| g.instance.clone())
                .or_else(|| s.hardware.catalog.first().map(|i| i.name.clone()))
                .unwrap_or_default();
            let batch_size = s
                .hardware
                .cluster
                .workers
                .last()
                .map_or(32, |g| g.batch_size);
            s.hardware.cluster.workers.push(WorkerGroup {
                instance,
                count: 1,
                batch_size,
            });
        });
        // The new group is on the page, however long the list.
        let n = group_count.get_untracked() + 1;
        shown.update(|l| *l = (*l).max(n));
    };
    view! {
        <section class="panel" aria-label="cluster">
            <h2>"Cluster"</h2>
            <table class="groups" data-testid="worker-groups">
                <colgroup><col /><col class="count" /><col class="batch" /><col class="remove" /></colgroup>
                <thead><tr><th>"worker device"</th><th>"count"</th><th>"batch size [samples]"</th><th></th></tr></thead>
                <tbody>
                    <For each=move || 0..built.get() key=|i| *i let:i>
                        <GroupRow i=i largest=largest />
                    </For>
                </tbody>
            </table>
            <ShowMore total=group_count limit=shown what="groups" testid="groups-more" />
            // The total's message is at the largest group's count (GroupRow),
            // each group's at its own fields.
            <FieldErrors errors=Signal::derive(move || state.errors_where(|f| {
                f.starts_with("hardware.cluster.workers") && f != "hardware.cluster.workers" && !f.starts_with("hardware.cluster.workers[")
            })) />
            <button type="button" class="secondary" on:click=add data-testid="add-group">"+ worker group"</button>
            <h3>"Parameter servers"</h3>
            <p class="hint">
                "One definition for every model: the PS side supplies PS nodes × link per node. "
                "Zeng's push queue uses that sum as one link (Eq. 30-31); Cynthia reads each node's CPU and link (Eq. 3-7)."
            </p>
            <div class="grid2">
                <NumberField path="hardware.cluster.ps.count"
                    label="PS nodes"
                    integer=true
                    value=Signal::derive(move || sc.with(|s| f64::from(s.hardware.cluster.ps.count)))
                    on_set=Callback::new(move |v: f64| sc.update(|s| s.hardware.cluster.ps.count = v as u32))
                    errors=state.errors_at("hardware.cluster.ps.count")
                    testid="ps-count"
                />
                <label class="field">
                    <span class="field-label">"PS instance type"</span>
                    <InstanceSelect
                        current=Signal::derive(move || sc.with(|s| s.hardware.cluster.ps.instance.clone()))
                        none_label="none"
                        on_pick=Callback::new(move |v: String| sc.update(|s| s.hardware.cluster.ps.instance = (!v.is_empty()).then_some(v)))
                        testid="ps-instance"
                        label="PS instance type".to_string()
                    />
                    <FieldErrors errors=state.errors_at("hardware.cluster.ps.instance") />
                </label>
                <OptNumberField path="hardware.cluster.ps.link"
                    label="link per node [Gb/s]"
                    value=Signal::derive(move || sc.with(|s| s.hardware.cluster.ps.link_bytes_per_s.map(bytes_to_gbit_per_s)))
                    on_set=Callback::new(move |v: Option<f64>| sc.update(|s| s.hardware.cluster.ps.link_bytes_per_s = v.map(gbit_per_s_to_bytes)))
                    errors=state.errors_at("hardware.cluster.ps.link")
                    testid="bandwidth-gbps"
                    help="Empty: the PS instance's network bandwidth."
                />
                <NumberField path="hardware.cluster.ps.latency"
                    label="start-up time per transfer [s]"
                    value=Signal::derive(move || sc.with(|s| s.hardware.cluster.ps.latency_s))
                    on_set=Callback::new(move |v| sc.update(|s| s.hardware.cluster.ps.latency_s = v))
                    errors=state.errors_at("hardware.cluster.ps.latency")
                    testid="latency"
                    help="Not in Zeng's model (0); the authors measured ≈0.5 s, which explains their 10 GbE error."
                />
            </div>
            <div class="row">
                {link_presets()
                    .into_iter()
                    .map(|(label, bytes)| view! {
                        <button type="button" class="small secondary" on:click=move |_| sc.update(|s| s.hardware.cluster.ps.link_bytes_per_s = Some(bytes))>{label}</button>
                    })
                    .collect_view()}
            </div>
            <p class="hint" data-testid="ps-supply">{move || sc.with(|s| {
                let ps = &s.hardware.cluster.ps;
                match ps.total_bandwidth(&s.hardware.catalog) {
                    Some(total) => format!("PS side supplies {} Gb/s in all.", bytes_to_gbit_per_s(total)),
                    None => "No PS link yet: type one, or pick a PS instance with a network bandwidth.".into(),
                }
            })}</p>
        </section>
    }
}

#[component]
fn GroupRow(
    i: usize,
    /// The group that adds the most workers (`ClusterPanel`).
    largest: Memo<Option<usize>>,
) -> impl IntoView {
    let state = expect_state();
    let sc = state.scenario;
    let group = Memo::new(move |_| sc.with(|s| s.hardware.cluster.workers.get(i).cloned()));
    let edit = move |f: fn(&mut WorkerGroup, f64)| {
        Callback::new(move |v: f64| {
            sc.update(|s| {
                if let Some(g) = s.hardware.cluster.workers.get_mut(i) {
                    f(g, v);
                }
            })
        })
    };
    let on_instance = move |name: String| {
        sc.update(|s| {
            if let Some(g) = s.hardware.cluster.workers.get_mut(i) {
                g.instance = name;
            }
        })
    };
    let remove = move |_| {
        sc.update(|s| {
            if i < s.hardware.cluster.workers.len() {
                s.hardware.cluster.workers.remove(i);
            }
        })
    };
    let count_field = format!("hardware.cluster.workers[{i}].count");
    let batch_field = format!("hardware.cluster.workers[{i}].batch_size");
    let errors_for =
        move |field: String| Signal::derive(move || state.errors_where(|f| f == field));
    let count_errors = Signal::derive(move || {
        let mut v = state.errors_where(|f| f == count_field);
        if largest.get() == Some(i) {
            v.extend(state.errors_where(|f| f == "hardware.cluster.workers"));
        }
        v
    });
    view! {
        <tr>
            <td>
                <InstanceSelect
                    current=Signal::derive(move || group.with(|g| g.as_ref().map(|g| g.instance.clone())))
                    on_pick=Callback::new(on_instance)
                    testid=format!("group-{i}-instance")
                    label=format!("worker group {}: instance type", i + 1)
                />
            </td>
            <td>
                <NumberField path="hardware.cluster.workers"
                    label="workers"
                    integer=true
                    value=Signal::derive(move || group.with(|g| g.as_ref().map_or(0.0, |g| f64::from(g.count))))
                    on_set=edit(|g, v| g.count = v as u32)
                    errors=count_errors
                    testid="group-count"
                />
            </td>
            <td>
                <NumberField path="hardware.cluster.workers"
                    label="batch size [samples]"
                    integer=true
                    value=Signal::derive(move || group.with(|g| g.as_ref().map_or(0.0, |g| f64::from(g.batch_size))))
                    on_set=edit(|g, v| g.batch_size = v as u32)
                    errors=errors_for(batch_field)
                    testid="group-batch"
                />
            </td>
            <td><button type="button" class="small secondary" on:click=remove title="remove this group" aria-label=format!("remove worker group {}", i + 1) data-testid="group-remove">"✕"</button></td>
        </tr>
    }
}
