//! A `<select>` of the catalog's instance types. A shared link may carry a
//! catalog of 1,000 types: one `<option>` element built per type per select
//! would be a long main-thread task on every catalog change, and even
//! parsed in one go their style and layout cost more per select. So a long
//! list holds only the current choice until the select is first focused or
//! pressed, and options are written as one escaped HTML string, only when
//! the names change; a selection change only sets the value.

use leptos::html;
use leptos::prelude::*;

use super::expect_state;

#[component]
pub fn InstanceSelect(
    /// The instance type chosen now (`None`: no choice).
    #[prop(into)]
    current: Signal<Option<String>>,
    /// The first option's label when "no choice" is allowed (its value is "").
    #[prop(optional)]
    none_label: Option<&'static str>,
    on_pick: Callback<String>,
    #[prop(into)] testid: String,
    /// What a screen reader says for it (its visible label, or the row's).
    #[prop(into)]
    label: String,
) -> impl IntoView {
    let names = expect_state().instance_names;
    let node = NodeRef::<html::Select>::new();
    // The current choice when the catalog does not have it.
    let stranger = Memo::new(move |_| {
        current
            .get()
            .filter(|c| names.with(|names| !names.iter().any(|n| n == c)))
    });
    // Every option is there (a short list, or the user reached for it).
    let full = RwSignal::new(false);
    Effect::new(move |_| {
        let Some(el) = node.get() else { return };
        names.with(|names| {
            let html = if full.get() || names.len() <= SHORT_LIST {
                options_html(names, none_label, stranger.get().as_deref())
            } else {
                let current = current.get_untracked();
                let only: Vec<String> = current
                    .iter()
                    .filter(|c| names.contains(c))
                    .cloned()
                    .collect();
                options_html(&only, none_label, stranger.get().as_deref())
            };
            el.set_inner_html(&html);
        });
        el.set_value(current.get_untracked().as_deref().unwrap_or(""));
    });
    Effect::new(move |_| {
        let current = current.get();
        if let Some(el) = node.get_untracked() {
            el.set_value(current.as_deref().unwrap_or(""));
        }
    });
    let reach = move || {
        if !full.get_untracked() {
            full.set(true);
        }
    };
    view! {
        <select
            node_ref=node
            data-testid=testid
            aria-label=label
            on:change=move |ev| on_pick.run(event_target_value(&ev))
            on:focus=move |_| reach()
            on:pointerdown=move |_| reach()
        ></select>
    }
}

/// Lists longer than this wait for the user to reach for the select.
const SHORT_LIST: usize = 40;

/// The options, names escaped (a catalog may come from anyone's link). A
/// current choice that is not in the catalog stays visible, marked, rather
/// than the select silently showing the first type.
fn options_html(names: &[String], none_label: Option<&str>, stranger: Option<&str>) -> String {
    let mut out = String::with_capacity(names.len() * 48);
    let mut push = |value: &str, label: &str| {
        out.push_str("<option value=\"");
        escape_into(&mut out, value);
        out.push_str("\">");
        escape_into(&mut out, label);
        out.push_str("</option>");
    };
    if let Some(label) = none_label {
        push("", label);
    }
    if let Some(c) = stranger {
        push(c, &format!("{c} (not in the catalog)"));
    }
    for n in names {
        push(n, n);
    }
    out
}

fn escape_into(out: &mut String, text: &str) {
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}
