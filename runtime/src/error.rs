//! Errors as CAL reports them: a `CAL_RESULT_*` code and a message, kept per thread for
//! `calGetErrorString` (runtime calls) and `calclGetErrorString` (compiler calls).

use std::cell::RefCell;
use std::ffi::CString;
use std::fmt;

use crate::types::*;

/// A failed call: the code the C function returns and the text of the error string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CalError {
    /// `CAL_RESULT_*`.
    pub code: CALresult,
    /// What went wrong, for `calGetErrorString`.
    pub message: String,
}

impl CalError {
    /// An error with `code`.
    pub fn new(code: CALresult, message: impl Into<String>) -> CalError {
        CalError {
            code,
            message: message.into(),
        }
    }

    /// `CAL_RESULT_ERROR`.
    pub fn error(message: impl Into<String>) -> CalError {
        CalError::new(CAL_RESULT_ERROR, message)
    }

    /// `CAL_RESULT_BAD_HANDLE` for handle `h` of `kind`.
    pub fn bad_handle(kind: &str, h: u32) -> CalError {
        CalError::new(CAL_RESULT_BAD_HANDLE, format!("{h} is not a valid {kind}"))
    }

    /// `CAL_RESULT_INVALID_PARAMETER`.
    pub fn invalid(message: impl Into<String>) -> CalError {
        CalError::new(CAL_RESULT_INVALID_PARAMETER, message)
    }

    /// `CAL_RESULT_NOT_SUPPORTED`.
    pub fn unsupported(message: impl Into<String>) -> CalError {
        CalError::new(CAL_RESULT_NOT_SUPPORTED, message)
    }
}

impl fmt::Display for CalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, result_name(self.code))
    }
}

impl std::error::Error for CalError {}

/// The enumerator name of a `CALresult`.
pub fn result_name(code: CALresult) -> &'static str {
    match code {
        CAL_RESULT_OK => "CAL_RESULT_OK",
        CAL_RESULT_ERROR => "CAL_RESULT_ERROR",
        CAL_RESULT_INVALID_PARAMETER => "CAL_RESULT_INVALID_PARAMETER",
        CAL_RESULT_NOT_SUPPORTED => "CAL_RESULT_NOT_SUPPORTED",
        CAL_RESULT_ALREADY => "CAL_RESULT_ALREADY",
        CAL_RESULT_NOT_INITIALIZED => "CAL_RESULT_NOT_INITIALIZED",
        CAL_RESULT_BAD_HANDLE => "CAL_RESULT_BAD_HANDLE",
        CAL_RESULT_BAD_NAME_TYPE => "CAL_RESULT_BAD_NAME_TYPE",
        CAL_RESULT_PENDING => "CAL_RESULT_PENDING",
        CAL_RESULT_BUSY => "CAL_RESULT_BUSY",
        CAL_RESULT_WARNING => "CAL_RESULT_WARNING",
        _ => "unknown CALresult",
    }
}

/// Which error string a call reports to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// `calGetErrorString`.
    Runtime,
    /// `calclGetErrorString`.
    Compiler,
}

thread_local! {
    static LAST: RefCell<[CString; 2]> = RefCell::new([CString::default(), CString::default()]);
}

/// Records `message` as the last error of `channel` on this thread. (During thread or
/// process exit, when the thread's storage is gone, e.g. a C++ static destructor freeing a
/// resource after `calShutdown`, the message is dropped; the code is still returned.)
pub fn set_last(channel: Channel, message: &str) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    let _ = LAST.try_with(|l| l.borrow_mut()[channel as usize] = c);
}

/// The last error of `channel` on this thread; the pointer stays valid until the next
/// failing call of that channel on this thread.
pub fn last_ptr(channel: Channel) -> *const std::ffi::c_char {
    LAST.try_with(|l| l.borrow()[channel as usize].as_ptr())
        .unwrap_or(c"".as_ptr())
}

/// The last error of `channel` on this thread, as a string (for Rust callers and tests).
pub fn last(channel: Channel) -> String {
    LAST.try_with(|l| l.borrow()[channel as usize].to_string_lossy().into_owned())
        .unwrap_or_default()
}
