//! `Device`: device memory that persists across launches and modules.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use emu::exec::DeviceMemory;
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::prelude::*;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// One emulated device: its global memory, heap and grid-sync workspace.
#[pyclass(frozen, module = "ptxemu._native")]
pub struct Device {
    /// Distinguishes devices (a module keeps one machine per device).
    pub(crate) id: u64,
    pub(crate) memory: Arc<Mutex<DeviceMemory>>,
}

impl Device {
    /// The memory, locked (a poisoned lock still holds valid memory: launches never panic
    /// half-way through a host write).
    pub(crate) fn lock(&self) -> MutexGuard<'_, DeviceMemory> {
        self.memory.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The bytes of a C-contiguous buffer.
pub(crate) fn bytes_of(buf: &PyBuffer<u8>) -> PyResult<&[u8]> {
    if !buf.is_c_contiguous() {
        return Err(PyBufferError::new_err("the buffer is not C-contiguous"));
    }
    // SAFETY: a C-contiguous buffer of `len_bytes` bytes at `buf_ptr`, kept alive (and its
    // exporter's memory pinned) by `buf` for the borrow.
    Ok(unsafe { std::slice::from_raw_parts(buf.buf_ptr() as *const u8, buf.len_bytes()) })
}

/// The bytes of a writable C-contiguous buffer.
pub(crate) fn bytes_of_mut(buf: &mut PyBuffer<u8>) -> PyResult<&mut [u8]> {
    if buf.readonly() {
        return Err(PyBufferError::new_err("the buffer is read-only"));
    }
    if !buf.is_c_contiguous() {
        return Err(PyBufferError::new_err("the buffer is not C-contiguous"));
    }
    // SAFETY: as in `bytes_of`, and the buffer is writable; Python code cannot run while the
    // GIL is held by this call, so nothing else writes it meanwhile.
    Ok(unsafe { std::slice::from_raw_parts_mut(buf.buf_ptr() as *mut u8, buf.len_bytes()) })
}

#[pymethods]
impl Device {
    /// A device whose allocations (and launches' memory) may total at most `memory_limit`
    /// bytes; by default the machine's memory, as `ptxemu run --memory-limit` defaults.
    #[new]
    #[pyo3(signature = (memory_limit=None))]
    fn new(memory_limit: Option<u64>) -> Device {
        let limit = memory_limit.or_else(emu::exec::reserve::machine_memory);
        Device {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            memory: Arc::new(Mutex::new(DeviceMemory::with_limit(limit))),
        }
    }

    /// The most bytes the device may hold (`None`: no limit).
    #[getter]
    fn memory_limit(&self) -> Option<u64> {
        self.lock().budget().limit()
    }

    /// A number that tells devices apart.
    #[getter]
    fn id(&self) -> u64 {
        self.id
    }

    /// Allocates `nbytes` zeroed bytes (aligned to 256); returns the address.
    ///
    /// Raises `DeviceMemoryError` past the device's limit or when the host refuses the bytes.
    fn alloc(&self, py: Python<'_>, nbytes: u64, label: &str) -> PyResult<u64> {
        py.allow_threads(|| self.lock().alloc(nbytes, label))
            .map_err(|e| crate::raise(py, "DeviceMemoryError", (e.to_string(),)))
    }

    /// Frees the allocation at `addr`.
    fn free(&self, py: Python<'_>, addr: u64) -> bool {
        py.allow_threads(|| self.lock().free(addr))
    }

    /// Copies a C-contiguous buffer of bytes to `addr`.
    fn write(&self, py: Python<'_>, addr: u64, data: PyBuffer<u8>) -> PyResult<()> {
        let bytes = bytes_of(&data)?;
        if !py.allow_threads(|| self.lock().write(addr, bytes)) {
            return Err(PyValueError::new_err(format!(
                "{} byte(s) at 0x{addr:x} do not lie in one allocation",
                bytes.len()
            )));
        }
        Ok(())
    }

    /// Fills a writable C-contiguous buffer of bytes from `addr`.
    fn read_into(&self, py: Python<'_>, addr: u64, mut out: PyBuffer<u8>) -> PyResult<()> {
        let bytes = bytes_of_mut(&mut out)?;
        let n = bytes.len();
        if !py.allow_threads(|| self.lock().read_into(addr, bytes)) {
            return Err(PyValueError::new_err(format!(
                "{n} byte(s) at 0x{addr:x} do not lie in one allocation"
            )));
        }
        Ok(())
    }
}
