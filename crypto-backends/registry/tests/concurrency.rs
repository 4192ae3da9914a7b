//! One key object shared by several threads, as the proxy and `oltp` workers
//! share it: every thread seals and opens at once, and values sealed on one
//! thread open on another (the OpenSSL backend keys one context per thread).
//!
//! Vectors: none fixed; random keys and nonces (OS CSPRNG), deterministic
//! per-thread plaintexts.

use std::sync::mpsc;

use encbench_crypto::{Aead, random_nonce};

const THREADS: usize = 4;
const MESSAGES: usize = 200;

#[test]
fn threads_share_one_key_and_open_each_others_values() {
    for d in encbench_registry::all() {
        let mut key = vec![0u8; d.algorithm.key_len()];
        random_nonce(&mut key).expect("OS random number generator");
        let aead: Box<dyn Aead> = d.new_key(&key).expect("key setup");
        let aead = aead.as_ref();
        let (send, receive) = mpsc::channel::<(usize, usize, Vec<u8>, Vec<u8>)>();
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let send = send.clone();
                scope.spawn(move || {
                    for m in 0..MESSAGES {
                        let mut nonce = vec![0u8; d.algorithm.nonce_len()];
                        random_nonce(&mut nonce).expect("OS random number generator");
                        let plaintext = format!("thread {t} message {m}").repeat(m % 5 + 1);
                        let sealed = aead
                            .seal_to_vec(&nonce, &t.to_be_bytes(), plaintext.as_bytes())
                            .expect("seal");
                        // Open on this thread, including a failed open in between.
                        if m % 10 == 0 {
                            let mut bad = sealed.clone();
                            bad[0] ^= 1;
                            assert!(aead.open_to_vec(&nonce, &t.to_be_bytes(), &bad).is_err());
                        }
                        let opened = aead
                            .open_to_vec(&nonce, &t.to_be_bytes(), &sealed)
                            .expect("open");
                        assert_eq!(opened, plaintext.as_bytes());
                        send.send((t, m, nonce, sealed)).expect("channel");
                    }
                });
            }
            drop(send);
            // Open everything on the test's own thread as well.
            let mut opened = 0;
            for (t, m, nonce, sealed) in receive {
                let plaintext = format!("thread {t} message {m}").repeat(m % 5 + 1);
                let got = aead
                    .open_to_vec(&nonce, &t.to_be_bytes(), &sealed)
                    .expect("cross-thread open");
                assert_eq!(got, plaintext.as_bytes(), "{}", d.name());
                opened += 1;
            }
            assert_eq!(opened, THREADS * MESSAGES, "{}", d.name());
        });
    }
}
