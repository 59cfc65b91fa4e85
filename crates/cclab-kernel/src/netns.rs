//! Anonymous network namespaces: created by a short-lived thread with `unshare(CLONE_NEWNET)`
//! and kept alive only by the file descriptor this module holds. Closing it (drop) lets the
//! kernel destroy the namespace and every device in it once no thread is inside any more.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

/// A network namespace this process created.
pub struct Namespace {
    fd: OwnedFd,
}

impl Namespace {
    /// A fresh, empty network namespace (only a down `lo`). `EPERM` means the machine forbids
    /// namespaces (no `CAP_SYS_ADMIN`, or a seccomp profile); the caller reports it.
    pub fn new() -> io::Result<Namespace> {
        // unshare() moves the calling thread; a throwaway thread keeps the caller where it is.
        std::thread::spawn(|| -> io::Result<Namespace> {
            // SAFETY: unshare only changes this thread's namespace membership.
            if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
                return Err(io::Error::last_os_error());
            }
            let fd = File::open("/proc/thread-self/ns/net")?;
            Ok(Namespace { fd: fd.into() })
        })
        .join()
        .map_err(|_| io::Error::other("namespace thread panicked"))?
    }

    /// Moves the calling thread into this namespace for good: call it first thing in a thread
    /// spawned for that purpose (sockets and devices created afterwards belong to the namespace).
    pub fn enter(&self) -> io::Result<()> {
        // SAFETY: setns on a namespace fd we own; affects only the calling thread.
        if unsafe { libc::setns(self.fd.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Runs `f` on a new thread inside this namespace and returns its result.
    pub fn run<T: Send>(&self, f: impl FnOnce() -> io::Result<T> + Send) -> io::Result<T> {
        std::thread::scope(|s| {
            s.spawn(|| {
                self.enter()?;
                f()
            })
            .join()
            .map_err(|_| io::Error::other("namespace thread panicked"))?
        })
    }

    /// The namespace's inode (as `ls -i /proc/<pid>/ns/net` shows it), for tests and reports.
    pub fn inode(&self) -> io::Result<u64> {
        use std::os::unix::fs::MetadataExt;
        Ok(File::from(self.fd.try_clone()?).metadata()?.ino())
    }
}

/// Writes a per-namespace sysctl (`/proc/sys/net/...` reflects the namespace of the thread that
/// opens it): call from a thread inside the namespace.
pub fn sysctl(path: &str, value: &str) -> io::Result<()> {
    std::fs::write(format!("/proc/sys/{path}"), value)
        .map_err(|e| io::Error::new(e.kind(), format!("sysctl {path}: {e}")))
}
