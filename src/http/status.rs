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
        match self {
            Status::Continue => 100,
            Status::Ok => 200,
            Status::Accepted => 202,
            Status::NoContent => 204,
            Status::BadRequest => 400,
            Status::Unauthorized => 401,
            Status::Forbidden => 403,
            Status::NotFound => 404,
            Status::MethodNotAllowed => 405,
            Status::NotAcceptable => 406,
            Status::RequestTimeout => 408,
            Status::Conflict => 409,
            Status::ContentTooLarge => 413,
            Status::UriTooLong => 414,
            Status::UnsupportedMediaType => 415,
            Status::ExpectationFailed => 417,
            Status::MisdirectedRequest => 421,
            Status::TooManyRequests => 429,
            Status::RequestHeaderFieldsTooLarge => 431,
            Status::InternalServerError => 500,
            Status::NotImplemented => 501,
            Status::ServiceUnavailable => 503,
            Status::HttpVersionNotSupported => 505,
        }
    }

    /// The reason phrase registered for the code (RFC 9110; RFC 6585 for 429).
    pub const fn reason(self) -> &'static str {
        match self {
            Status::Continue => "Continue",
            Status::Ok => "OK",
            Status::Accepted => "Accepted",
            Status::NoContent => "No Content",
            Status::BadRequest => "Bad Request",
            Status::Unauthorized => "Unauthorized",
            Status::Forbidden => "Forbidden",
            Status::NotFound => "Not Found",
            Status::MethodNotAllowed => "Method Not Allowed",
            Status::NotAcceptable => "Not Acceptable",
            Status::RequestTimeout => "Request Timeout",
            Status::Conflict => "Conflict",
            Status::ContentTooLarge => "Content Too Large",
            Status::UriTooLong => "URI Too Long",
            Status::UnsupportedMediaType => "Unsupported Media Type",
            Status::ExpectationFailed => "Expectation Failed",
            Status::MisdirectedRequest => "Misdirected Request",
            Status::TooManyRequests => "Too Many Requests",
            Status::RequestHeaderFieldsTooLarge => "Request Header Fields Too Large",
            Status::InternalServerError => "Internal Server Error",
            Status::NotImplemented => "Not Implemented",
            Status::ServiceUnavailable => "Service Unavailable",
            Status::HttpVersionNotSupported => "HTTP Version Not Supported",
        }
    }

    /// True for statuses whose responses never carry content (1xx, 204, RFC 9110 §6.4.1).
    pub const fn forbids_content(self) -> bool {
        matches!(self, Status::Continue | Status::NoContent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_sorted_and_unique() {
        let codes: Vec<u16> = Status::ALL.iter().map(|s| s.code()).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(codes, sorted);
    }
}
