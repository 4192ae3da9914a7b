//! The plaintext search: does any file under a path hold a byte string? Reads only the
//! data extents of sparse files (`SEEK_DATA` / `SEEK_HOLE`), in 1 MiB chunks overlapping
//! by the needle's length.

use std::fs;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use nix::unistd::{Whence, lseek};

use super::AtRestError;
use super::error::io;

/// Chunk size of the reads.
const CHUNK: usize = 1 << 20;

/// The first regular file under `root` (itself, if a file) that contains `needle`;
/// symbolic links are not followed.
///
/// # Errors
/// A directory or file cannot be read.
pub fn find_in_tree(root: &Path, needle: &[u8]) -> Result<Option<PathBuf>, AtRestError> {
    let finder = memchr::memmem::Finder::new(needle);
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = fs::symlink_metadata(&p).map_err(io("read", &p))?;
        if meta.is_dir() {
            for e in fs::read_dir(&p).map_err(io("read", &p))? {
                stack.push(e.map_err(io("read", &p))?.path());
            }
        } else if meta.is_file() && file_contains(&p, &finder)? {
            return Ok(Some(p));
        }
    }
    Ok(None)
}

/// Whether the file at `path` holds the finder's needle in one of its data extents.
fn file_contains(path: &Path, finder: &memchr::memmem::Finder<'_>) -> Result<bool, AtRestError> {
    let mut f = fs::File::open(path).map_err(io("open", path))?;
    let len = f.metadata().map_err(io("read", path))?.len();
    let overlap = finder.needle().len().saturating_sub(1);
    let mut buf = vec![0u8; CHUNK + overlap];
    let mut pos: u64 = 0;
    while pos < len {
        // The next data extent (a filesystem without SEEK_DATA reports everything as data).
        let Ok(data) = lseek(&f, pos as libc::off_t, Whence::SeekData) else {
            break; // ENXIO: no data after `pos`.
        };
        let hole = lseek(&f, data, Whence::SeekHole).map_or(len, |h| h as u64);
        let (start, end) = (data as u64, hole.min(len));
        f.seek(SeekFrom::Start(start)).map_err(io("read", path))?;
        let mut kept = 0usize;
        let mut at = start;
        while at < end {
            let want = CHUNK.min((end - at) as usize);
            let n = f
                .read(&mut buf[kept..kept + want])
                .map_err(io("read", path))?;
            if n == 0 {
                break;
            }
            if finder.find(&buf[..kept + n]).is_some() {
                return Ok(true);
            }
            at += n as u64;
            let total = kept + n;
            let keep = overlap.min(total);
            buf.copy_within(total - keep..total, 0);
            kept = keep;
        }
        pos = end.max(start + 1);
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_needle_across_chunks_and_after_a_hole_is_found() {
        let dir = std::env::temp_dir().join(format!("encbench-search-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("sub")).expect("dir");
        let needle = b"needle-0123456789";
        let file = dir.join("sub/f");
        let mut f = fs::File::create(&file).expect("create");
        // A hole of 8 MiB, then the needle straddling a chunk boundary.
        let at = (8 << 20) + CHUNK as u64 - 5;
        f.seek(SeekFrom::Start(at)).expect("seek");
        std::io::Write::write_all(&mut f, needle).expect("write");
        drop(f);
        assert_eq!(find_in_tree(&dir, needle).expect("search"), Some(file));
        assert_eq!(find_in_tree(&dir, b"needle-absent").expect("search"), None);
        fs::remove_dir_all(&dir).expect("clean");
    }
}
