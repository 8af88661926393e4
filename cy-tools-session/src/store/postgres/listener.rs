//! The worker's one `LISTEN` connection: a notification on [`CHANNEL`] wakes the sessions of
//! this process that wait for that (tenant, session, name). It only wakes: the signal itself
//! is a row, which the waiter takes. A notification lost while the connection is down is made
//! up for by waking every waiter once it is back, and by the waiters' own polling.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_postgres::{AsyncMessage, NoTls};

/// The channel signals are announced on.
pub(super) const CHANNEL: &str = "cy_signals";

/// The key a notification carries: `[tenant, session, name]` as JSON, unambiguous whatever
/// the three hold.
pub(super) fn key(tenant: &str, session: &str, name: &str) -> String {
    serde_json::json!([tenant, session, name]).to_string()
}

/// Who waits for what in this process.
#[derive(Debug, Default)]
pub(super) struct Wakers {
    waiting: Mutex<HashMap<String, Weak<Notify>>>,
}

impl Wakers {
    /// The `Notify` a waiter for `key` waits on (shared by the waiters of one key).
    pub(super) fn register(&self, key: &str) -> Arc<Notify> {
        let mut waiting = self.lock();
        if let Some(notify) = waiting.get(key).and_then(Weak::upgrade) {
            return notify;
        }
        // Keys nobody waits for any more are dropped as new ones come.
        waiting.retain(|_, w| w.strong_count() > 0);
        let notify = Arc::new(Notify::new());
        waiting.insert(key.to_string(), Arc::downgrade(&notify));
        notify
    }

    fn wake(&self, key: &str) {
        let notify = self.lock().get(key).and_then(Weak::upgrade);
        if let Some(notify) = notify {
            notify.notify_waiters();
        }
    }

    fn wake_all(&self) {
        let all: Vec<Arc<Notify>> = self.lock().values().filter_map(Weak::upgrade).collect();
        for notify in all {
            notify.notify_waiters();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Weak<Notify>>> {
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The listening task, started when the first session waits (on the runtime it waits on) and
/// again if that runtime has gone; stopped when the store is dropped.
#[derive(Debug, Default)]
pub(super) struct Listener {
    task: Mutex<Option<JoinHandle<()>>>,
}

impl Listener {
    /// Starts the task unless it runs.
    pub(super) fn ensure(&self, config: &tokio_postgres::Config, wakers: &Arc<Wakers>) {
        let mut task = self
            .task
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if task.as_ref().is_some_and(|t| !t.is_finished()) {
            return;
        }
        let (config, wakers) = (config.clone(), Arc::clone(wakers));
        *task = Some(tokio::spawn(listen(config, wakers)));
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(task) = self
            .task
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        {
            task.abort();
        }
    }
}

/// Listens for good: connects, `LISTEN`s, wakes the waiters each notification names; when the
/// connection ends, wakes everyone (notifications may have been missed) and connects again,
/// backing off up to 2 s between tries.
async fn listen(config: tokio_postgres::Config, wakers: Arc<Wakers>) {
    let mut pause = Duration::from_millis(50);
    loop {
        match config.connect(NoTls).await {
            Ok((client, mut connection)) => {
                let dispatch = {
                    let wakers = Arc::clone(&wakers);
                    tokio::spawn(async move {
                        while let Some(message) =
                            std::future::poll_fn(|cx| connection.poll_message(cx)).await
                        {
                            match message {
                                Ok(AsyncMessage::Notification(n)) => wakers.wake(n.payload()),
                                Ok(_) => {}
                                Err(_) => break,
                            }
                        }
                    })
                };
                if client
                    .batch_execute(&format!("LISTEN {CHANNEL}"))
                    .await
                    .is_ok()
                {
                    pause = Duration::from_millis(50);
                    // Whatever was announced while no one listened.
                    wakers.wake_all();
                    let _ = dispatch.await;
                    tracing::debug!("the signal listener lost its connection; reconnecting");
                } else {
                    dispatch.abort();
                }
                drop(client);
                wakers.wake_all();
            }
            Err(err) => tracing::debug!("the signal listener cannot connect: {err}"),
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(2));
    }
}
