//! Browser file plumbing: save text as a download, pick an uploaded file.

use wasm_bindgen::JsCast;

use crate::worker::imports::ImportError;

/// Largest upload read (in an import worker, `ui::uploads`), traces apart.
pub const MAX_UPLOAD_BYTES: f64 = 5.0 * 1024.0 * 1024.0;

/// Why the browser did not offer a download.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DownloadError {
    #[error("cannot create the file")]
    File,
    #[error("cannot create a link")]
    Link,
}

/// Offers `text` as a file download.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), DownloadError> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)
        .map_err(|_| DownloadError::File)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| DownloadError::File)?;
    let doc = leptos::prelude::document();
    let a = doc
        .create_element("a")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
        .ok_or(DownloadError::Link)?;
    a.set_href(&url);
    a.set_download(filename);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// The file chosen in the input `ev` came from, unread (a worker reads
/// it), refused by name when over `limit` [B].
pub fn picked_within(
    ev: &web_sys::Event,
    limit: f64,
) -> Option<Result<(String, web_sys::File), ImportError>> {
    let input = ev.target()?.dyn_into::<web_sys::HtmlInputElement>().ok()?;
    let file = input.files()?.get(0)?;
    // Let the same file be chosen again after an error.
    input.set_value("");
    let name = file.name();
    let size = file.size();
    if size > limit {
        return Some(Err(ImportError::TooLarge {
            file: name,
            mb: size / 1e6,
            limit_mb: limit / 1024.0 / 1024.0,
        }));
    }
    Some(Ok((name, file)))
}

/// A file name stem from a scenario title: lower-case words joined by `-`.
pub fn file_stem(title: &str) -> String {
    let s: String = title
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s
        .split('-')
        .filter(|p| !p.is_empty())
        .take(6)
        .collect::<Vec<_>>()
        .join("-");
    if s.is_empty() {
        "ddnn-planner".into()
    } else {
        s
    }
}
