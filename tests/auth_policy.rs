//! The offline token policy: every fixture role's outcome and exact challenge, the decision
//! order, the expiry boundary, revocation and revision changes, Unicode and malformed claims, and
//! that nothing the policy returns ever contains a token.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use loopback_mcp_http::auth::claims::ClaimError;
use loopback_mcp_http::auth::fixtures::{self, Fixture, FixtureError, Role};
use loopback_mcp_http::auth::policy::{
    Denial, InvalidTokenReason as R, OfflineTokenPolicy, Principal,
};
use loopback_mcp_http::auth::scope::{self, Requirement};
use loopback_mcp_http::json;
use loopback_mcp_http::random::RandomUnavailable;

const PORT: u16 = 8123;
const META: &str = "http://127.0.0.1:8123/.well-known/oauth-protected-resource/mcp";

fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn fixture() -> Fixture {
    Fixture::build(PORT, now(), &mut common::deterministic_random()).expect("fixture builds")
}

fn bearer(token: &str) -> Vec<u8> {
    format!("Bearer {token}").into_bytes()
}

fn decide(f: &Fixture, role: Role, requirement: &Requirement) -> Result<Arc<Principal>, Denial> {
    let header = bearer(f.token(role));
    f.policy.decide([header.as_slice()], requirement, now())
}

/// The outcome of a decision reduced to what a client sees: status, code, challenge.
fn seen(
    result: &Result<Arc<Principal>, Denial>,
    requirement: &Requirement,
) -> (u16, String, Option<String>) {
    match result {
        Ok(_) => (200, "ok".into(), None),
        Err(d) => (d.status().code(), d.code().into(), d.challenge(META, requirement)),
    }
}

const CONNECT_SCOPE_401: &str = r#"Bearer error="invalid_token", resource_metadata="http://127.0.0.1:8123/.well-known/oauth-protected-resource/mcp", scope="mcp:connect""#;
const READ_SCOPE_401: &str = r#"Bearer error="invalid_token", resource_metadata="http://127.0.0.1:8123/.well-known/oauth-protected-resource/mcp", scope="mcp:connect resources:read""#;

#[test]
fn every_role_gets_its_outcome_on_a_connect_request() {
    let f = fixture();
    let cases: [(Role, Result<(), Denial>); 13] = [
        (Role::Full, Ok(())),
        (Role::ConnectOnly, Ok(())),
        (Role::OtherSubject, Ok(())),
        (Role::TenantDenied, Ok(())),
        (Role::Unicode, Ok(())),
        (Role::Expired, Err(Denial::InvalidToken(R::Expired))),
        (Role::Revoked, Err(Denial::InvalidToken(R::Revoked))),
        (Role::Inactive, Err(Denial::InvalidToken(R::Inactive))),
        (Role::WrongIssuer, Err(Denial::InvalidToken(R::WrongIssuer))),
        (Role::WrongAudience, Err(Denial::InvalidToken(R::WrongAudience))),
        (
            Role::WrongAuthorizationResource,
            Err(Denial::InvalidToken(R::WrongAuthorizationRequestResource)),
        ),
        (Role::WrongTokenResource, Err(Denial::InvalidToken(R::WrongTokenRequestResource))),
        (Role::StaleRevision, Err(Denial::InvalidToken(R::StaleRevision))),
    ];
    for (role, expected) in cases {
        let got = decide(&f, role, &scope::CONNECT);
        assert_eq!(got.as_ref().map(|_| ()).map_err(Clone::clone), expected, "{}", role.name());
        if expected.is_err() {
            assert_eq!(seen(&got, &scope::CONNECT).2.as_deref(), Some(CONNECT_SCOPE_401));
        }
    }
}

#[test]
fn every_role_gets_its_outcome_and_exact_challenge_on_resources_list() {
    let f = fixture();
    let insufficient = r#"Bearer error="insufficient_scope", scope="mcp:connect resources:read", resource_metadata="http://127.0.0.1:8123/.well-known/oauth-protected-resource/mcp""#;
    let cases: [(Role, u16, &str, Option<&str>); 13] = [
        (Role::Full, 200, "ok", None),
        (Role::ConnectOnly, 403, "insufficient_scope", Some(insufficient)),
        (Role::OtherSubject, 200, "ok", None),
        (Role::TenantDenied, 403, "forbidden", None),
        (Role::Unicode, 200, "ok", None),
        (Role::Expired, 401, "invalid_token", Some(READ_SCOPE_401)),
        (Role::Revoked, 401, "invalid_token", Some(READ_SCOPE_401)),
        (Role::Inactive, 401, "invalid_token", Some(READ_SCOPE_401)),
        (Role::WrongIssuer, 401, "invalid_token", Some(READ_SCOPE_401)),
        (Role::WrongAudience, 401, "invalid_token", Some(READ_SCOPE_401)),
        (Role::WrongAuthorizationResource, 401, "invalid_token", Some(READ_SCOPE_401)),
        (Role::WrongTokenResource, 401, "invalid_token", Some(READ_SCOPE_401)),
        (Role::StaleRevision, 401, "invalid_token", Some(READ_SCOPE_401)),
    ];
    for (role, status, code, challenge) in cases {
        let got = seen(&decide(&f, role, &scope::READ_RESOURCES), &scope::READ_RESOURCES);
        assert_eq!(got, (status, code.to_owned(), challenge.map(str::to_owned)), "{}", role.name());
    }
}

#[test]
fn missing_bearer_gets_401_without_error_code() {
    let f = fixture();
    let cases: [(&[&[u8]], &Requirement, &str); 4] = [
        (
            &[],
            &scope::CONNECT,
            r#"Bearer resource_metadata="http://127.0.0.1:8123/.well-known/oauth-protected-resource/mcp", scope="mcp:connect""#,
        ),
        (
            &[],
            &scope::READ_RESOURCES,
            r#"Bearer resource_metadata="http://127.0.0.1:8123/.well-known/oauth-protected-resource/mcp", scope="mcp:connect resources:read""#,
        ),
        (
            &[b"Basic dXNlcjpwYXNz"],
            &scope::CONNECT,
            r#"Bearer resource_metadata="http://127.0.0.1:8123/.well-known/oauth-protected-resource/mcp", scope="mcp:connect""#,
        ),
        (
            &[b"Negotiate"],
            &scope::CONNECT,
            r#"Bearer resource_metadata="http://127.0.0.1:8123/.well-known/oauth-protected-resource/mcp", scope="mcp:connect""#,
        ),
    ];
    for (values, requirement, challenge) in cases {
        let got = f.policy.decide(values.iter().copied(), requirement, now());
        assert_eq!(got, Err(Denial::MissingCredentials));
        let (status, _, rendered) = seen(&got, requirement);
        assert_eq!((status, rendered.as_deref()), (401, Some(challenge)));
        assert!(!challenge.contains("error="));
    }
}

#[test]
fn authorization_field_spellings_are_accepted_or_refused_exactly() {
    let f = fixture();
    let token = f.token(Role::Full).to_owned();
    let invalid_request = r#"Bearer error="invalid_request", resource_metadata="http://127.0.0.1:8123/.well-known/oauth-protected-resource/mcp""#;
    type Outcome = Result<(), Denial>;
    let cases: Vec<(Vec<Vec<u8>>, Outcome)> = vec![
        (vec![format!("Bearer {token}").into_bytes()], Ok(())),
        (vec![format!("bearer {token}").into_bytes()], Ok(())),
        (vec![format!("BEARER {token}").into_bytes()], Ok(())),
        (vec![format!("BeArEr    {token}").into_bytes()], Ok(())),
        (
            vec![format!("Bearer {token}").into_bytes(), format!("Bearer {token}").into_bytes()],
            Err(Denial::InvalidRequest),
        ),
        (
            vec![format!("Bearer {token}").into_bytes(), b"Basic eA==".to_vec()],
            Err(Denial::InvalidRequest),
        ),
        (vec![format!("Bearer\t{token}").into_bytes()], Err(Denial::InvalidRequest)),
        (vec![format!("Bearer {token} extra").into_bytes()], Err(Denial::InvalidRequest)),
        (vec![format!("Bearer {token},").into_bytes()], Err(Denial::InvalidRequest)),
        (vec![format!("Bearer \"{token}\"").into_bytes()], Err(Denial::InvalidRequest)),
        (vec![format!("Bearer={token}").into_bytes()], Err(Denial::InvalidRequest)),
        (vec![b"Bearer".to_vec()], Err(Denial::InvalidRequest)),
        (vec![format!("Token {token}").into_bytes()], Err(Denial::MissingCredentials)),
        (
            vec![format!("Bearer {}", token.to_uppercase()).into_bytes()],
            Err(Denial::InvalidToken(R::Unknown)),
        ),
        (vec![format!("Bearer {}x", token).into_bytes()], Err(Denial::InvalidToken(R::Unknown))),
        (
            vec![format!("Bearer {}", &token[1..]).into_bytes()],
            Err(Denial::InvalidToken(R::Unknown)),
        ),
    ];
    for (values, expected) in cases {
        let got = f.policy.decide(values.iter().map(Vec::as_slice), &scope::CONNECT, now());
        assert_eq!(got.as_ref().map(|_| ()).map_err(Clone::clone), expected, "{values:?}");
        if expected == Err(Denial::InvalidRequest) {
            assert_eq!(
                seen(&got, &scope::CONNECT),
                (400, "invalid_request".into(), Some(invalid_request.into()))
            );
        }
    }
}

#[test]
fn every_invalid_token_cause_looks_the_same_from_outside() {
    let f = fixture();
    let mut outsides = BTreeSet::new();
    for role in Role::ALL {
        if let Err(denial @ Denial::InvalidToken(_)) = decide(&f, role, &scope::READ_RESOURCES) {
            outsides.insert((
                denial.status().code(),
                denial.code(),
                denial.challenge(META, &scope::READ_RESOURCES),
            ));
        }
    }
    let unknown = f.policy.decide([&b"Bearer unknowntoken"[..]], &scope::READ_RESOURCES, now());
    let Err(unknown) = unknown else { panic!("accepted an unknown token") };
    outsides.insert((
        unknown.status().code(),
        unknown.code(),
        unknown.challenge(META, &scope::READ_RESOURCES),
    ));
    assert_eq!(outsides.len(), 1, "{outsides:?}");
}

#[test]
fn expiry_is_exclusive_at_the_instant_of_expiry() {
    let f = fixture();
    let expires_at = now() + fixtures::TOKEN_LIFETIME;
    let header = bearer(f.token(Role::Full));
    let cases: [(SystemTime, Result<(), Denial>); 4] = [
        (expires_at - Duration::from_secs(1), Ok(())),
        (expires_at - Duration::from_nanos(1), Ok(())),
        (expires_at, Err(Denial::InvalidToken(R::Expired))),
        (expires_at + Duration::from_secs(3600), Err(Denial::InvalidToken(R::Expired))),
    ];
    for (at, expected) in cases {
        let got = f.policy.decide([header.as_slice()], &scope::CONNECT, at);
        assert_eq!(got.map(|_| ()), expected, "{at:?}");
    }
}

#[test]
fn revocation_takes_effect_on_the_next_decision() {
    let mut f = fixture();
    assert!(decide(&f, Role::Full, &scope::CONNECT).is_ok());
    assert!(Role::Full.revoke_in(&mut f.policy));
    assert_eq!(decide(&f, Role::Full, &scope::CONNECT), Err(Denial::InvalidToken(R::Revoked)));
    // Other tokens of the same subject are untouched; unknown ids are reported.
    assert!(decide(&f, Role::ConnectOnly, &scope::CONNECT).is_ok());
    assert!(!f.policy.revoke("tid-no-such-token"));
}

#[test]
fn a_revision_change_invalidates_every_earlier_token_of_that_subject_only() {
    let mut f = fixture();
    assert_eq!(Role::Full.bump_revision_in(&mut f.policy), Some(2));
    for role in [Role::Full, Role::ConnectOnly] {
        assert_eq!(decide(&f, role, &scope::CONNECT), Err(Denial::InvalidToken(R::StaleRevision)));
    }
    assert!(decide(&f, Role::OtherSubject, &scope::CONNECT).is_ok());
    assert!(decide(&f, Role::Unicode, &scope::CONNECT).is_ok());
    // A token issued at the new revision works.
    let mut claims = Role::Full.claims(f.policy.resource(), now());
    claims.token_id = "tid-reissued".into();
    claims.authorization_revision = 2;
    f.policy.register("reissued-token", claims).unwrap();
    let got = f.policy.decide([&b"Bearer reissued-token"[..]], &scope::CONNECT, now());
    assert_eq!(got.map(|p| p.authorization_revision), Ok(2));
}

#[test]
fn both_rfc8707_resources_and_every_binding_are_compared_exactly() {
    let resource = "http://127.0.0.1:8123/mcp";
    let lookalikes = [
        "HTTP://127.0.0.1:8123/mcp",
        "http://127.0.0.1:8123/mcp/",
        "http://127.0.0.1:8124/mcp",
        "http://localhost:8123/mcp",
        "https://127.0.0.1:8123/mcp",
        "http://127.0.0.1:8123/MCP",
    ];
    type Bind = fn(&mut loopback_mcp_http::auth::claims::TokenClaims, &str);
    let bindings: [(Bind, R); 4] = [
        (|c, v| c.audience = v.into(), R::WrongAudience),
        (|c, v| c.resource = v.into(), R::WrongResource),
        (|c, v| c.authorization_request_resource = v.into(), R::WrongAuthorizationRequestResource),
        (|c, v| c.token_request_resource = v.into(), R::WrongTokenRequestResource),
    ];
    let mut policy = OfflineTokenPolicy::for_loopback_port(PORT, fixtures::ISSUER);
    policy.set_revision("alice", "acme", 1);
    assert_eq!(policy.resource(), resource);
    let mut n = 0;
    for (bind, reason) in bindings {
        for value in lookalikes {
            n += 1;
            let mut claims = Role::Full.claims(resource, now());
            claims.token_id = format!("tid-{n}");
            bind(&mut claims, value);
            let token = format!("token-{n}");
            policy.register(&token, claims).unwrap();
            let got = policy.decide([bearer(&token).as_slice()], &scope::CONNECT, now());
            assert_eq!(got, Err(Denial::InvalidToken(reason)), "{value}");
        }
    }
}

#[test]
fn unicode_principals_come_through_unchanged() {
    let f = fixture();
    let principal = decide(&f, Role::Unicode, &scope::READ_RESOURCES).unwrap();
    assert_eq!(&*principal.subject, fixtures::UNICODE_SUBJECT);
    assert_eq!(&*principal.tenant, fixtures::UNICODE_TENANT);
    assert!(principal.tenant.contains(['/', '?', '#']) && !principal.tenant.is_ascii());
    let expected: BTreeSet<String> = ["mcp:connect", "resources:read"].map(String::from).into();
    assert_eq!(principal.scopes, expected);
    assert_eq!(principal.authorization_revision, 1);
}

#[test]
fn the_principal_is_the_tokens_claims_and_nothing_else() {
    let f = fixture();
    let cases: [(Role, &str, &str); 4] = [
        (Role::Full, "alice", "acme"),
        (Role::ConnectOnly, "alice", "acme"),
        (Role::OtherSubject, "mallory", "acme"),
        (Role::TenantDenied, "carol", "globex"),
    ];
    for (role, subject, tenant) in cases {
        let p = decide(&f, role, &scope::CONNECT).unwrap();
        assert_eq!((&*p.subject, &*p.tenant), (subject, tenant));
    }
}

#[test]
fn malformed_claims_are_refused_when_the_fixture_is_built() {
    type Spoil = fn(&mut loopback_mcp_http::auth::claims::TokenClaims);
    let cases: [(Spoil, ClaimError); 10] = [
        (|c| c.subject = String::new(), ClaimError::Empty("subject")),
        (|c| c.tenant = String::new(), ClaimError::Empty("tenant")),
        (|c| c.issuer = String::new(), ClaimError::Empty("issuer")),
        (|c| c.subject = "ali\nce".into(), ClaimError::ControlCharacter("subject")),
        (|c| c.tenant = "ac\u{0}me".into(), ClaimError::ControlCharacter("tenant")),
        (|c| c.tenant = "ac\u{85}me".into(), ClaimError::ControlCharacter("tenant")),
        (
            |c| c.token_request_resource = "http://x\r\n".into(),
            ClaimError::ControlCharacter("token_request_resource"),
        ),
        (|c| c.token_id = "\u{7f}".into(), ClaimError::ControlCharacter("token_id")),
        (
            |c| {
                c.scopes.insert("two words".into());
            },
            ClaimError::InvalidScope,
        ),
        (
            |c| {
                c.scopes.insert("quo\"te".into());
            },
            ClaimError::InvalidScope,
        ),
    ];
    for (spoil, expected) in cases {
        let mut policy = OfflineTokenPolicy::for_loopback_port(PORT, fixtures::ISSUER);
        let mut claims = Role::Full.claims(policy.resource(), now());
        spoil(&mut claims);
        assert_eq!(policy.register("tok", claims), Err(expected));
    }
    let mut policy = OfflineTokenPolicy::for_loopback_port(PORT, fixtures::ISSUER);
    let claims = Role::Full.claims(policy.resource(), now());
    assert_eq!(policy.register("has space", claims.clone()), Err(ClaimError::InvalidTokenSyntax));
    assert_eq!(policy.register("", claims.clone()), Err(ClaimError::InvalidTokenSyntax));
    policy.register("tok", claims.clone()).unwrap();
    assert_eq!(policy.register("tok", claims.clone()), Err(ClaimError::DuplicateToken));
    assert_eq!(policy.register("tok2", claims), Err(ClaimError::DuplicateTokenId));
}

#[test]
fn a_repeating_random_source_is_refused() {
    let mut zeros = |buf: &mut [u8]| {
        buf.fill(0);
        Ok(())
    };
    let result = Fixture::build(PORT, now(), &mut zeros);
    assert_eq!(result.err(), Some(FixtureError::Claims(ClaimError::DuplicateToken)));
}

#[test]
fn a_failing_random_source_builds_no_fixture() {
    let failure = RandomUnavailable { os_error: Some(38) };
    let mut failing = |_: &mut [u8]| Err(failure);
    let result = Fixture::build(PORT, now(), &mut failing);
    assert_eq!(result.err(), Some(FixtureError::Random(failure)));
}

#[test]
fn fixture_tokens_are_random_per_build_and_carry_no_role() {
    let a = fixture();
    let mut second_source = |buf: &mut [u8]| {
        buf.fill_with(rand_byte);
        Ok(())
    };
    let b = Fixture::build(PORT, now(), &mut second_source).unwrap();
    let tokens_a: BTreeSet<&str> = a.tokens().map(|(_, t)| t).collect();
    let tokens_b: BTreeSet<&str> = b.tokens().map(|(_, t)| t).collect();
    assert_eq!(tokens_a.len(), Role::ALL.len());
    assert!(tokens_a.is_disjoint(&tokens_b));
    for (role, token) in a.tokens() {
        assert_eq!(token.len(), 64);
        assert!(token.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        assert!(!token.contains(role.name()));
        assert_eq!(Role::from_name(role.name()), Some(role));
    }
}

/// A second deterministic source, different from `counter_random`.
fn rand_byte() -> u8 {
    use std::cell::Cell;
    thread_local!(static STATE: Cell<u32> = const { Cell::new(12345) });
    STATE.with(|s| {
        let next = s.get().wrapping_mul(1103515245).wrapping_add(12345);
        s.set(next);
        (next >> 16) as u8
    })
}

#[test]
fn nothing_the_policy_returns_contains_a_token() {
    let f = fixture();
    for requirement in [scope::CONNECT, scope::READ_RESOURCES] {
        for role in Role::ALL {
            let result = decide(&f, role, &requirement);
            let mut texts = vec![format!("{result:?}")];
            if let Err(denial) = &result {
                texts.push(denial.code().to_owned());
                texts.extend(denial.challenge(META, &requirement));
            }
            for text in &texts {
                for (_, token) in f.tokens() {
                    assert!(!text.contains(token), "{} leaks a token: {text}", role.name());
                }
            }
        }
    }
    let debug = format!("{:?}", f.policy);
    for (_, token) in f.tokens() {
        assert!(!debug.contains(token), "the policy keeps raw tokens");
    }
}

#[test]
fn protected_resource_metadata_document_is_exact() {
    let f = fixture();
    assert_eq!(
        json::encode(&f.policy.metadata()),
        r#"{"authorization_servers":["https://issuer.loopback-mcp-http.invalid"],"bearer_methods_supported":["header"],"resource":"http://127.0.0.1:8123/mcp","scopes_supported":["mcp:connect","resources:read"]}"#
    );
    assert_eq!(f.policy.metadata_url(), META);
}

#[test]
fn insufficient_scope_lists_held_and_required_scopes() {
    let mut policy = OfflineTokenPolicy::for_loopback_port(PORT, fixtures::ISSUER);
    policy.set_revision("alice", "acme", 1);
    policy.allow_tenant("acme");
    let cases: [(&[&str], Requirement, Option<&str>); 4] = [
        (&["mcp:connect"], scope::READ_RESOURCES, Some("mcp:connect resources:read")),
        (&[], scope::CONNECT, Some("mcp:connect")),
        (&["other:scope"], scope::READ_RESOURCES, Some("mcp:connect other:scope resources:read")),
        (&["resources:read", "mcp:connect", "extra"], scope::READ_RESOURCES, None),
    ];
    for (i, (held, requirement, expected)) in cases.into_iter().enumerate() {
        let mut claims = Role::Full.claims(policy.resource(), now());
        claims.token_id = format!("tid-{i}");
        claims.scopes = held.iter().map(|s| s.to_string()).collect();
        let token = format!("tok-{i}");
        policy.register(&token, claims).unwrap();
        let got = policy.decide([bearer(&token).as_slice()], &requirement, now());
        match expected {
            Some(scope) => assert_eq!(got, Err(Denial::InsufficientScope { scope: scope.into() })),
            None => assert!(got.is_ok()),
        }
    }
}

#[test]
fn unknown_subjects_are_refused_even_with_a_well_bound_token() {
    let mut policy = OfflineTokenPolicy::for_loopback_port(PORT, fixtures::ISSUER);
    let claims = Role::Full.claims(policy.resource(), now());
    policy.register("tok", claims).unwrap();
    let got = policy.decide([&b"Bearer tok"[..]], &scope::CONNECT, now());
    assert_eq!(got, Err(Denial::InvalidToken(R::UnknownSubject)));
}

#[test]
fn revisions_and_revocations_apply_whichever_comes_first() {
    let mut policy = OfflineTokenPolicy::for_loopback_port(PORT, fixtures::ISSUER);
    let claims = Role::Full.claims(policy.resource(), now());
    let (subject, tenant) = (claims.subject.clone(), claims.tenant.clone());
    let revision = claims.authorization_revision;
    let token_id = claims.token_id.clone();
    // No revision yet: the subject is unknown, and a bump has nothing to move.
    policy.register("tok", claims).unwrap();
    assert_eq!(policy.bump_revision(&subject, &tenant), None);
    let decide = |p: &OfflineTokenPolicy| p.decide([&b"Bearer tok"[..]], &scope::CONNECT, now());
    assert_eq!(decide(&policy).map(|_| ()), Err(Denial::InvalidToken(R::UnknownSubject)));
    // A revision set after the token was registered applies to it.
    policy.set_revision(&subject, &tenant, revision);
    assert!(decide(&policy).is_ok());
    // The same subject in another tenant is another pair.
    policy.set_revision(&subject, "another-tenant", revision + 5);
    assert!(decide(&policy).is_ok());
    assert_eq!(policy.bump_revision(&subject, &tenant), Some(revision + 1));
    assert_eq!(decide(&policy).map(|_| ()), Err(Denial::InvalidToken(R::StaleRevision)));
    policy.set_revision(&subject, &tenant, revision);
    assert!(decide(&policy).is_ok());
    // Revocation by id, whatever the revision.
    assert!(policy.revoke(&token_id));
    assert_eq!(decide(&policy).map(|_| ()), Err(Denial::InvalidToken(R::Revoked)));
}

/// What the full conformance token holds, with the scope of template id 456 that it lacks: a
/// challenge names the held scopes too (`insufficient_scope_lists_held_and_required_scopes`).
const FULL_AND_456: &str = "mcp:conformance:baseline mcp:conformance:prompts:get \
    mcp:conformance:prompts:test_simple_prompt mcp:conformance:resources:read \
    mcp:conformance:resources:static mcp:conformance:resources:template:123 \
    mcp:conformance:resources:template:456 mcp:conformance:tools:call \
    mcp:conformance:tools:test_simple_text";

#[test]
fn conformance_tokens_hold_their_scopes_and_a_template_id_needs_its_own() {
    let mut f = fixture();
    let unknown = f.policy.identify([bearer(fixtures::CONFORMANCE_LOW).as_slice()], now());
    assert_eq!(unknown.err(), Some(Denial::InvalidToken(R::Unknown)));
    f.add_conformance_tokens(now()).unwrap();
    let low = "mcp:conformance:baseline";
    let tool = "mcp:conformance:tools:call mcp:conformance:tools:test_simple_text";
    let template = "mcp:conformance:resources:read mcp:conformance:resources:template:";
    let cases: [(&str, Requirement, Option<&str>, Option<String>); 6] = [
        (fixtures::CONFORMANCE_LOW, scope::CONFORMANCE_TOOL, None, Some(format!("{low} {tool}"))),
        (fixtures::CONFORMANCE_FULL, scope::CONFORMANCE_TOOL, None, None),
        (
            fixtures::CONFORMANCE_LOW,
            scope::CONFORMANCE_TEMPLATE,
            Some("mcp:conformance:resources:template:123"),
            Some(format!("{low} {template}123")),
        ),
        (
            fixtures::CONFORMANCE_FULL,
            scope::CONFORMANCE_TEMPLATE,
            Some("mcp:conformance:resources:template:123"),
            None,
        ),
        (
            fixtures::CONFORMANCE_FULL,
            scope::CONFORMANCE_TEMPLATE,
            Some("mcp:conformance:resources:template:456"),
            Some(FULL_AND_456.to_owned()),
        ),
        (fixtures::CONFORMANCE_LOW, scope::CONNECT, None, Some(format!("{low} mcp:connect"))),
    ];
    for (token, requirement, argument, expected) in cases {
        let principal = f.policy.identify([bearer(token).as_slice()], now()).unwrap();
        let got = f.policy.authorize_with(principal, &requirement, argument);
        let expected = expected.map(|scope| Denial::InsufficientScope { scope });
        assert_eq!(got.err(), expected, "{token} {requirement:?} {argument:?}");
    }
    let again = f.add_conformance_tokens(now());
    assert_eq!(again, Err(ClaimError::DuplicateToken), "registered once only");
}
