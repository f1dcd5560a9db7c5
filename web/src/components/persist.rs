//! Keeping the session in the browser's localStorage. A failed write (the
//! quota) leaves the previous save whole: setItem replaces atomically or
//! not at all.

use crate::session::Session;

pub const KEY: &str = "kubesim.session.v1";

fn storage() -> Result<web_sys::Storage, String> {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .ok_or_else(|| "this browser gives the page no localStorage: the session will not survive a reload".into())
}

pub fn save(text: &str) -> Result<(), String> {
    storage()?.set_item(KEY, text).map_err(|e| {
        let name = js_sys::Reflect::get(&e, &"name".into()).ok().and_then(|n| n.as_string()).unwrap_or_default();
        format!(
            "Not saved ({name}): the browser refused {} KB. Your last save is intact; export the session to a file to keep this one.",
            text.len() / 1024
        )
    })
}

/// The saved session, if any; a save that cannot be read is set aside
/// (never overwritten by the fresh session) and reported.
pub fn load() -> Result<Option<Session>, String> {
    let st = storage()?;
    let Some(text) = st.get_item(KEY).ok().flatten() else { return Ok(None) };
    match Session::import_json(&text) {
        Ok(s) => Ok(Some(s)),
        Err(e) => {
            let _ = st.set_item(&format!("{KEY}.unreadable"), &text);
            let _ = st.remove_item(KEY);
            Err(format!("The saved session could not be restored ({e}); it was kept under {KEY}.unreadable and a new session started."))
        }
    }
}

pub fn clear() {
    if let Ok(st) = storage() {
        let _ = st.remove_item(KEY);
    }
}
