//! Keeping the session in the browser's IndexedDB, one record per journal
//! entry and a header that counts them (`durable.rs` decides what each
//! save sends). A save is one transaction, asked to be flushed to disk
//! (`durability: "strict"`); the page counts its writes durable when it
//! has committed. A save the browser refuses (quota) aborts whole: the
//! last good save stays.
//!
//! One tab saves a session: it holds the session's Web Lock while open. A
//! second tab on the same session shows it as last saved and saves
//! nothing, and offers a separate session (`?session=ID`, a database of
//! its own).
//!
//! Sessions saved by earlier versions in localStorage are moved here.

use std::rc::Rc;

use js_sys::{Array, Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbOpenDbRequest, IdbRequest, IdbTransaction};

use crate::durable::{Done, LogPart, SaveBatch, Saver};
use crate::i18n::tr;
use crate::lessons::Lang;
use crate::session::Session;

/// Where earlier versions kept the session (localStorage).
pub const OLD_KEY: &str = "kubesim.session.v1";
/// The header (key `session`), and the store's log records
/// (`durable::LogPart`) keyed by their index. The records share the
/// header's store so that the database keeps the version an earlier
/// page made (an upgrade would wait for every older tab to close).
const META: &str = "meta";
const JOURNAL: &str = "journal";
const HEADER_KEY: &str = "session";

/// The session this tab works on: the page's own, or a separate one named
/// in the address (`?session=ID`).
fn session_id() -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    form_urlencoded_value(search.trim_start_matches('?'), "session")
}

fn form_urlencoded_value(query: &str, key: &str) -> Option<String> {
    query.split('&').filter_map(|kv| kv.split_once('=')).find(|(k, _)| *k == key).map(|(_, v)| {
        // Ids are made by the page: letters, digits and dashes.
        v.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect()
    })
}

fn database_name(id: Option<&str>) -> String {
    match id {
        None => "kubesim".into(),
        Some(id) => format!("kubesim-{id}"),
    }
}

fn js_error(e: &JsValue) -> String {
    let name = Reflect::get(e, &"name".into()).ok().and_then(|n| n.as_string()).unwrap_or_default();
    let message = Reflect::get(e, &"message".into()).ok().and_then(|n| n.as_string()).unwrap_or_default();
    match (name.is_empty(), message.is_empty()) {
        (false, false) => format!("{name}: {message}"),
        (false, true) => name,
        _ => e.as_string().unwrap_or_else(|| "an unknown error".into()),
    }
}

/// A request's result, once it succeeded.
async fn finished(req: &IdbRequest) -> Result<JsValue, String> {
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let ok = req.clone();
        let on_success = Closure::once_into_js(move || {
            let _ = resolve.call1(&JsValue::NULL, &ok.result().unwrap_or(JsValue::UNDEFINED));
        });
        let bad = req.clone();
        let on_error = Closure::once_into_js(move || {
            let e = bad.error().ok().flatten().map(JsValue::from).unwrap_or(JsValue::UNDEFINED);
            let _ = reject.call1(&JsValue::NULL, &e);
        });
        req.set_onsuccess(Some(on_success.unchecked_ref()));
        req.set_onerror(Some(on_error.unchecked_ref()));
    });
    JsFuture::from(promise).await.map_err(|e| js_error(&e))
}

/// Opens (and on first use creates) a session's database.
async fn open(name: &str) -> Result<IdbDatabase, String> {
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or("this browser gives the page no IndexedDB: the session will not survive a reload")?;
    let req: IdbOpenDbRequest = factory.open_with_u32(name, 1).map_err(|e| js_error(&e))?;
    let upgrading = req.clone();
    let on_upgrade = Closure::once_into_js(move || {
        if let Ok(db) = upgrading.result().and_then(|r| r.dyn_into::<IdbDatabase>()) {
            let _ = db.create_object_store(META);
            let _ = db.create_object_store(JOURNAL);
        }
    });
    req.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
    let db = finished(&req).await?;
    db.dyn_into::<IdbDatabase>().map_err(|_| "the browser's database did not open".to_string())
}

/// What the database holds of a session: its header, its store's log
/// records and its journal's entries, each in order. (A reload from the
/// store's log reads the journal after the page is shown.)
struct Stored {
    header: String,
    logs: Vec<Vec<u8>>,
    entries: Vec<String>,
}

/// The stored session's header and store log.
async fn read_head(db: &IdbDatabase) -> Result<Option<Stored>, String> {
    let tx = db.transaction_with_str(META).map_err(|e| js_error(&e))?;
    let meta = tx.object_store(META).map_err(|e| js_error(&e))?;
    let header = finished(&meta.get(&HEADER_KEY.into()).map_err(|e| js_error(&e))?).await?;
    let Some(header) = header.as_string() else { return Ok(None) };
    // Numbers sort before strings: getAll gives the records in order,
    // then the header (a string, not a record).
    let all = finished(&meta.get_all().map_err(|e| js_error(&e))?).await?;
    let logs =
        Array::from(&all).iter().filter_map(|v| v.dyn_into::<Uint8Array>().ok()).map(|bytes| bytes.to_vec()).collect();
    Ok(Some(Stored { header, logs, entries: Vec::new() }))
}

/// The stored journal's entries.
async fn read_journal(db: &IdbDatabase) -> Result<Vec<String>, String> {
    let tx = db.transaction_with_str(JOURNAL).map_err(|e| js_error(&e))?;
    let journal = tx.object_store(JOURNAL).map_err(|e| js_error(&e))?;
    let all = finished(&journal.get_all().map_err(|e| js_error(&e))?).await?;
    Ok(Array::from(&all).iter().filter_map(|v| v.as_string()).collect())
}

/// Reads the journal a reload from the store's log left in the database
/// and puts it in place once the page is shown (until then export waits).
pub fn attach_journal_later(db: Rc<IdbDatabase>, session: Rc<std::cell::RefCell<Session>>) {
    wasm_bindgen_futures::spawn_local(async move {
        let attached = match read_journal(&db).await {
            Ok(entries) => session.borrow_mut().attach_saved_journal(&entries),
            Err(e) => Err(e),
        };
        if let Err(e) = attached {
            crate::session::web_log(&format!("kubesim: the saved journal could not be read back ({e})"));
        }
    });
}

/// Writes one save in one transaction; `done` when it committed (or why
/// not).
fn write(db: &IdbDatabase, batch: SaveBatch, done: Done) {
    let result = (|| -> Result<IdbTransaction, JsValue> {
        // Flushed to disk before it completes (web-sys has the options
        // argument only among its unstable APIs).
        let options = js_sys::Object::new();
        Reflect::set(&options, &"durability".into(), &"strict".into())?;
        let open_tx = Reflect::get(db, &"transaction".into())?.dyn_into::<Function>()?;
        let tx = open_tx
            .call3(db, &Array::of2(&META.into(), &JOURNAL.into()), &"readwrite".into(), &options)?
            .dyn_into::<IdbTransaction>()?;
        let journal = tx.object_store(JOURNAL)?;
        if batch.fresh {
            journal.clear()?;
        }
        for (i, entry) in batch.entries.iter().enumerate() {
            journal.put_with_key(&entry.into(), &((batch.from + i) as f64).into())?;
        }
        let meta = tx.object_store(META)?;
        if batch.log.clear {
            // The header goes too, and is put back below.
            meta.clear()?;
        }
        if !batch.log.bytes.is_empty() {
            meta.put_with_key(&Uint8Array::from(&batch.log.bytes[..]), &(batch.log.index as f64).into())?;
        }
        meta.put_with_key(&batch.header.into(), &HEADER_KEY.into())?;
        Ok(tx)
    })();
    let tx = match result {
        Ok(tx) => tx,
        Err(e) => return done(Err(js_error(&e))),
    };
    // Exactly one of complete and abort (an error aborts) ends it.
    let done = Rc::new(std::cell::RefCell::new(Some(done)));
    let on_complete = {
        let done = done.clone();
        Closure::once_into_js(move || {
            if let Some(d) = done.borrow_mut().take() {
                d(Ok(()))
            }
        })
    };
    let failed = tx.clone();
    let on_abort = Closure::once_into_js(move || {
        let why = failed.error().map(|e| js_error(&e)).unwrap_or_else(|| "the save was aborted".into());
        if let Some(d) = done.borrow_mut().take() {
            d(Err(why))
        }
    });
    tx.set_oncomplete(Some(on_complete.unchecked_ref()));
    tx.set_onabort(Some(on_abort.unchecked_ref()));
}

/// Writes one save and waits for it.
async fn write_now(db: &IdbDatabase, batch: SaveBatch) -> Result<(), String> {
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        write(
            db,
            batch.clone(),
            Box::new(move |r| {
                let _ = match r {
                    Ok(()) => resolve.call0(&JsValue::NULL),
                    Err(e) => reject.call1(&JsValue::NULL, &e.into()),
                };
            }),
        )
    });
    JsFuture::from(promise).await.map(|_| ()).map_err(|e| e.as_string().unwrap_or_default())
}

/// Keeps a save that cannot be restored in a database of its own, so the
/// new session does not overwrite it; says where.
async fn set_aside(stored: Stored) -> Result<String, String> {
    let name = format!("kubesim-unreadable-{:x}", js_sys::Date::now() as u64);
    let db = open(&name).await?;
    // Records read one after another are one log.
    let log = LogPart { clear: true, index: 0, bytes: stored.logs.concat() };
    let Stored { header, entries, .. } = stored;
    write_now(&db, SaveBatch { fresh: true, header, from: 0, entries, log }).await?;
    db.close();
    Ok(name)
}

/// The words the page shows for a refused save.
fn refused(why: String, lang: Lang) -> String {
    crate::i18n::fill(
        tr("Not saved ({}). Your last save is intact; export the session to a file to keep this one.", lang),
        &[&why],
    )
}

/// Asks for the session's Web Lock, held while this tab is open: resolves
/// to false when another tab holds it. (Without the Locks API, every tab
/// saves.)
fn take_lock(name: &str) -> Promise {
    let yes = || Promise::resolve(&JsValue::TRUE);
    let Some(navigator) = web_sys::window().map(|w| w.navigator()) else { return yes() };
    let Ok(locks) = Reflect::get(&navigator, &"locks".into()) else { return yes() };
    let Ok(request) = Reflect::get(&locks, &"request".into()).and_then(|r| r.dyn_into::<Function>()) else {
        return yes();
    };
    let options = js_sys::Object::new();
    let _ = Reflect::set(&options, &"ifAvailable".into(), &true.into());
    Promise::new(&mut |resolve: Function, _reject: Function| {
        let granted = Closure::once_into_js(move |lock: JsValue| -> JsValue {
            let _ = resolve.call1(&JsValue::NULL, &(!lock.is_null()).into());
            // Held until the tab goes: a promise that never settles.
            if lock.is_null() {
                JsValue::NULL
            } else {
                Promise::new(&mut |_, _| {}).into()
            }
        });
        let _ = request.call3(&locks, &name.into(), &options, &granted);
    })
}

/// Asks the browser not to evict the session's storage under pressure.
fn ask_to_persist() {
    if let Some(w) = web_sys::window() {
        // (The answer is the browser's to give; the session is saved either way.)
        let _ = w.navigator().storage().persist();
    }
}

/// What the page starts from.
pub struct Boot {
    pub session: Session,
    /// Whether the session is stored already (else its first save is whole).
    pub stored: bool,
    pub notice: Option<String>,
    pub saver: Saver,
    /// Set when another tab saves this session: this one only shows it.
    pub read_only: Option<String>,
    /// The database to read the journal from once the page is shown (a
    /// reload from the store's log).
    pub pending_journal: Option<Rc<IdbDatabase>>,
}

/// Opens the session this tab works on: the one saved, else one saved by
/// an earlier version in localStorage, else a new one.
pub async fn boot(lang: Lang) -> Boot {
    let id = session_id();
    let name = database_name(id.as_deref());
    // The lock and the database are asked for together.
    let lock = take_lock(&format!("{name}-session"));
    let db = open(&name).await;
    super::mark("kubesim:opened");
    let owner = JsFuture::from(lock).await.ok().and_then(|v| v.as_bool()).unwrap_or(true);
    let db = match db {
        Ok(db) => Rc::new(db),
        Err(e) => {
            return Boot {
                session: Session::deferred(1),
                stored: false,
                notice: Some(e),
                saver: crate::durable::nowhere(),
                read_only: None,
                pending_journal: None,
            }
        }
    };
    let (mut session, mut stored, mut notice, mut cannot_save) = (None, false, None, None);
    let mut pending_journal = None;
    match read_head(&db).await {
        Ok(Some(mut saved)) => {
            let logs: Vec<&[u8]> = saved.logs.iter().map(Vec::as_slice).collect();
            let from_log = match Session::from_store(&saved.header, &logs) {
                Ok(Some(s)) => Ok(s),
                Ok(None) => Err(String::new()),
                Err(e) => Err(e),
            };
            let restored = match from_log {
                Ok(s) => {
                    pending_journal = Some(db.clone());
                    Ok(s)
                }
                // No store saved (an earlier version's save), or one that
                // does not read back: the journal is the record, replayed.
                Err(why) => {
                    if !why.is_empty() {
                        crate::session::web_log(&format!(
                            "kubesim: the saved store did not restore ({why}); replaying the journal"
                        ));
                    }
                    match read_journal(&db).await {
                        Ok(entries) => {
                            saved.entries = entries;
                            Session::replay_stored(&saved.header, &saved.entries)
                        }
                        Err(e) => Err(e),
                    }
                }
            };
            match restored {
                Ok(mut s) => {
                    catch_up_clock(&mut s);
                    session = Some(s);
                    stored = true;
                    notice = Some(tr("Restored your session from this browser's storage.", lang).to_string());
                }
                Err(e) => {
                    match set_aside(saved).await {
                    Ok(kept) => notice = Some(crate::i18n::fill(
                        tr("The saved session could not be restored ({}); it was kept in this browser's database {} and a new session started.", lang),
                        &[&e, &kept],
                    )),
                    // Not kept elsewhere: this tab must not overwrite it.
                    Err(why) => {
                        cannot_save = Some(crate::i18n::fill(
                            tr("The saved session could not be restored ({}) nor kept aside ({}): this tab saves nothing, so it stays as it is.", lang),
                            &[&e, &why],
                        ))
                    }
                }
                }
            }
        }
        Ok(None) => {}
        Err(e) => notice = Some(e),
    }
    // An earlier version's save, moved into the database by the first save.
    let local = web_sys::window().and_then(|w| w.local_storage().ok().flatten());
    if session.is_none() && id.is_none() {
        if let Some(text) = local.as_ref().and_then(|st| st.get_item(OLD_KEY).ok().flatten()) {
            if let Ok(s) = Session::import_json(&text) {
                session = Some(s);
                notice = Some(tr("Restored your session from this browser's storage.", lang).to_string());
            }
        }
    }
    let read_only = (!owner)
        .then(|| {
            tr("This session is open in another tab, which saves it: this tab shows it as last saved and saves nothing.", lang)
                .to_string()
        })
        .or(cannot_save);
    if owner {
        ask_to_persist();
    }
    let saver: Saver = if read_only.is_none() {
        Rc::new(move |batch: SaveBatch, done: Done| {
            let fresh = batch.fresh;
            let local = local.clone();
            write(
                &db,
                batch,
                Box::new(move |r| {
                    if let (Ok(()), true, Some(st)) = (&r, fresh, &local) {
                        let _ = st.remove_item(OLD_KEY);
                    }
                    done(r.map_err(|why| refused(why, lang)))
                }),
            )
        })
    } else {
        crate::durable::nowhere()
    };
    // (A new session's starter cluster is built once the page shows.)
    let session = session.unwrap_or_else(|| Session::deferred(1));
    super::mark("kubesim:session");
    Boot { session, stored, notice, saver, read_only, pending_journal }
}

/// Where the clock is remembered as the page is left.
fn clock_key() -> String {
    format!("{}.clock", database_name(session_id().as_deref()))
}

/// Remembers the simulated clock as the page is left, synchronously
/// (IndexedDB's save may not commit before the page goes), with the
/// journal's length it goes with; a reload never takes the clock back.
pub fn remember_clock(s: &Session) {
    if let Some(st) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = st.set_item(&clock_key(), &format!("{} {}", s.journal_len(), s.clock.wall));
    }
}

/// Moves a restored session's clock to where the page left it, if that
/// was this same session (the same journal) and later than its save.
fn catch_up_clock(s: &mut Session) {
    let Some(st) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) else { return };
    let Some(text) = st.get_item(&clock_key()).ok().flatten() else { return };
    let Some((len, wall)) = text.split_once(' ') else { return };
    if let (Ok(len), Ok(wall)) = (len.parse::<usize>(), wall.parse::<i64>()) {
        // The length saved: a reload from the store's log has journaled
        // the controllers' restart after it.
        let saved = s.restored.map_or(s.journal_len(), |r| r.journal);
        if len == saved && wall > s.clock.wall {
            s.clock.wall = wall;
            s.server.sync_clock(kubesim::clock::SimTime(wall));
        }
    }
}

/// The address of a separate session (a database of its own).
pub fn separate_session_url() -> Option<String> {
    let location = web_sys::window()?.location();
    let id = format!("{:x}", js_sys::Date::now() as u64);
    Some(format!("{}?session={id}", location.pathname().ok()?))
}
