//! Each registry model's input panel, `<id>.rs` (or `<id>/mod.rs`), each a
//! component `Panel`. The list comes from `registry!`: a registered model
//! without a panel here does not compile.

use leptos::prelude::*;

/// The page's side of `registry!`: each model's panel module and `PANELS`.
macro_rules! declare_panels {
    ($($id:ident: $model:ident,)*) => {
        $(mod $id;)*

        /// Every model's input panel, in registry order: (model id, panel).
        pub static PANELS: &[(&str, fn() -> AnyView)] =
            &[$((stringify!($id), || view! { <$id::Panel /> }.into_any())),*];
    };
}

crate::registry!(declare_panels);
