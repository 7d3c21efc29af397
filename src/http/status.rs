//! The HTTP status codes this project sends, each with its reason phrase (RFC 9110 §15, and
//! RFC 6585 §4 for 429).
//!
//! A closed enum rather than a bare `u16`: every status the server can answer is listed here, so
//! a typo cannot produce a status nobody tested. This module does not decide *which* status an
//! error gets; that mapping lives next to each error type.

/// A status code the server may send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Continue,
    Ok,
    Accepted,
    NoContent,
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    NotAcceptable,
    RequestTimeout,
    Conflict,
    ContentTooLarge,
    UriTooLong,
    UnsupportedMediaType,
    ExpectationFailed,
    MisdirectedRequest,
    TooManyRequests,
    RequestHeaderFieldsTooLarge,
    InternalServerError,
    NotImplemented,
    ServiceUnavailable,
    HttpVersionNotSupported,
}

impl Status {
    /// Every status, in numeric order.
    pub const ALL: [Status; 23] = [
        Status::Continue,
        Status::Ok,
        Status::Accepted,
        Status::NoContent,
        Status::BadRequest,
        Status::Unauthorized,
        Status::Forbidden,
        Status::NotFound,
        Status::MethodNotAllowed,
        Status::NotAcceptable,
        Status::RequestTimeout,
        Status::Conflict,
        Status::ContentTooLarge,
        Status::UriTooLong,
        Status::UnsupportedMediaType,
        Status::ExpectationFailed,
        Status::MisdirectedRequest,
        Status::TooManyRequests,
        Status::RequestHeaderFieldsTooLarge,
        Status::InternalServerError,
        Status::NotImplemented,
        Status::ServiceUnavailable,
        Status::HttpVersionNotSupported,
    ];

    /// The three-digit code.
    pub const fn code(self) -> u16 {
        self.row().0
    }

    /// The reason phrase registered for the code (RFC 9110; RFC 6585 for 429).
    pub const fn reason(self) -> &'static str {
        self.row().1
    }

    /// The whole status line, `HTTP/1.1 code reason` and CRLF, written once at compile time.
    pub const fn line(self) -> &'static str {
        self.row().2
    }

    /// True for statuses whose responses never carry content (1xx, 204, RFC 9110 §6.4.1).
    pub const fn forbids_content(self) -> bool {
        matches!(self, Status::Continue | Status::NoContent)
    }
}

/// One row per status: its code, its reason phrase, and its status line made from the two, so
/// the three can never disagree.
macro_rules! status_rows {
    ($($variant:ident = $code:literal $reason:literal,)*) => {
        impl Status {
            const fn row(self) -> (u16, &'static str, &'static str) {
                match self {
                    $(Status::$variant => {
                        ($code, $reason, concat!("HTTP/1.1 ", $code, " ", $reason, "\r\n"))
                    })*
                }
            }
        }
    };
}

status_rows! {
    Continue = 100 "Continue",
    Ok = 200 "OK",
    Accepted = 202 "Accepted",
    NoContent = 204 "No Content",
    BadRequest = 400 "Bad Request",
    Unauthorized = 401 "Unauthorized",
    Forbidden = 403 "Forbidden",
    NotFound = 404 "Not Found",
    MethodNotAllowed = 405 "Method Not Allowed",
    NotAcceptable = 406 "Not Acceptable",
    RequestTimeout = 408 "Request Timeout",
    Conflict = 409 "Conflict",
    ContentTooLarge = 413 "Content Too Large",
    UriTooLong = 414 "URI Too Long",
    UnsupportedMediaType = 415 "Unsupported Media Type",
    ExpectationFailed = 417 "Expectation Failed",
    MisdirectedRequest = 421 "Misdirected Request",
    TooManyRequests = 429 "Too Many Requests",
    RequestHeaderFieldsTooLarge = 431 "Request Header Fields Too Large",
    InternalServerError = 500 "Internal Server Error",
    NotImplemented = 501 "Not Implemented",
    ServiceUnavailable = 503 "Service Unavailable",
    HttpVersionNotSupported = 505 "HTTP Version Not Supported",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_are_code_and_reason() {
        for status in Status::ALL {
            let expected = format!("HTTP/1.1 {} {}\r\n", status.code(), status.reason());
            assert_eq!(status.line(), expected);
        }
    }

    #[test]
    fn codes_are_sorted_and_unique() {
        let codes: Vec<u16> = Status::ALL.iter().map(|s| s.code()).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(codes, sorted);
    }
}
