// SPDX-License-Identifier: MIT
//! Raw declarations of libconfine.so.1, ABI v1 (include/confine.h, doc/library.md): every
//! Linux function, struct and constant of the header, as the header declares them.  Read the
//! header for what each does; the safe interface is the `confine` crate.
//!
//! C enums are `c_int` here (their size in the C ABI), with their values as constants.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_uint, c_void};

/// The ABI of these declarations: libconfine.so.1, symbols of version CONFINE_1.
pub const CONFINE_ABI: c_uint = 1;
/// confine-init of the build tree this crate was linked against, when it was one.
pub const BUILD_HELPER: Option<&str> = option_env!("CONFINE_SYS_BUILD_HELPER");

#[repr(C)]
pub struct confine_version_info {
    pub size: usize,
    pub major: c_uint,
    pub minor: c_uint,
    pub micro: c_uint,
    pub abi: c_uint,
    pub text: *const c_char,
}

pub const CONFINE_OK: c_int = 0;
pub const CONFINE_E_NOMEM: c_int = -1;
pub const CONFINE_E_INVALID: c_int = -2;
pub const CONFINE_E_RULES: c_int = -3;
pub const CONFINE_E_WORKSPACE: c_int = -4;
pub const CONFINE_E_PLAN: c_int = -5;
pub const CONFINE_E_SCAN: c_int = -6;
pub const CONFINE_E_BACKEND: c_int = -7;
pub const CONFINE_E_OS: c_int = -8;
pub const CONFINE_E_SPAWN: c_int = -9;
pub const CONFINE_E_NOTFOUND: c_int = -10;
pub const CONFINE_E_NOEXEC: c_int = -11;
pub const CONFINE_E_LIMIT: c_int = -12;
pub const CONFINE_E_APPROVAL: c_int = -13;
pub const CONFINE_E_RECORD: c_int = -14;

/// Caller-owned, fixed for ABI v1.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct confine_error {
    pub code: c_int,
    pub os_errno: c_int,
    pub syscall: [c_char; 32],
    pub what: [c_char; 128],
    pub subject: [c_char; 1024],
    pub line: c_int,
    pub column: c_int,
    pub reason: [c_char; 512],
    pub hint: [c_char; 512],
}

impl Default for confine_error {
    fn default() -> Self {
        // All zero: no error.
        unsafe { std::mem::zeroed() }
    }
}

pub const CONFINE_DISPLAY_QUOTES: c_uint = 1;
pub const CONFINE_DISPLAY_ASCII: c_uint = 2;

pub type confine_access = c_int;
pub const CONFINE_ACCESS_READ: confine_access = 1;
pub const CONFINE_ACCESS_WRITE: confine_access = 2;
pub const CONFINE_ACCESS_BOTH: confine_access = 3;
pub type confine_action = c_int;
pub const CONFINE_ALLOW: confine_action = 0;
pub const CONFINE_ASK: confine_action = 1;
pub const CONFINE_DENY: confine_action = 2;
pub type confine_policy = c_int;
pub const CONFINE_POLICY_REQUIRED: confine_policy = 0;
pub const CONFINE_POLICY_OFF: confine_policy = 1;
pub type confine_target = c_int;
pub const CONFINE_TARGET_LINUX: confine_target = 0;
pub const CONFINE_TARGET_MACOS: confine_target = 1;
pub const CONFINE_TARGET_WINDOWS: confine_target = 2;
pub type confine_backend = c_int;
pub const CONFINE_BACKEND_AUTO: confine_backend = 0;
pub const CONFINE_BACKEND_BWRAP: confine_backend = 1;
pub const CONFINE_BACKEND_LANDLOCK: confine_backend = 2;
pub type confine_tty = c_int;
pub const CONFINE_TTY_AUTO: confine_tty = 0;
pub const CONFINE_TTY_ON: confine_tty = 1;
pub const CONFINE_TTY_OFF: confine_tty = 2;
pub type confine_inject_placement = c_int;
pub const CONFINE_INJECT_ENV: confine_inject_placement = 0;
pub const CONFINE_INJECT_PATH: confine_inject_placement = 1;
pub type confine_rule_file = c_int;
pub const CONFINE_RULE_FILE_AUTO: confine_rule_file = 0;
pub const CONFINE_RULE_FILE_SESSION: confine_rule_file = 1;
pub const CONFINE_RULE_FILE_WORKSPACE: confine_rule_file = 2;
pub const CONFINE_RULE_FILE_USER: confine_rule_file = 3;
pub type confine_net_mode = c_int;
pub const CONFINE_NET_ON: confine_net_mode = 0;
pub const CONFINE_NET_OFF: confine_net_mode = 1;
pub const CONFINE_NET_DOMAINS: confine_net_mode = 2;
pub type confine_net_answer = c_int;
pub const CONFINE_NET_ANSWER_DENY: confine_net_answer = 0;
pub const CONFINE_NET_ANSWER_ONCE: confine_net_answer = 1;
pub const CONFINE_NET_ANSWER_RUN: confine_net_answer = 2;

pub const CONFINE_LIMIT_PIDS_MAX: u64 = 4194304;
pub const CONFINE_DURATION_MAX_MS: u64 = 1000000000000;
pub const CONFINE_INJECT_MAX_BYTES: usize = 8 * 1024 * 1024;
pub const CONFINE_INJECT_MAX_TOTAL: usize = 16 * 1024 * 1024;
pub const CONFINE_INJECT_MAX_COUNT: usize = 128;
pub const CONFINE_LANDLOCK_MIN_ABI: c_int = 3;
pub const CONFINE_CARD_MAX_TARGETS: usize = 8;
pub const CONFINE_NET_ASK_TIMEOUT_MS: c_int = 60000;

#[repr(C)]
pub struct confine_request {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct confine_run {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct confine_rules {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct confine_check {
    _opaque: [u8; 0],
}

#[repr(C)]
pub struct confine_probe_result {
    pub size: usize,
    pub backend: [c_char; 16],
    pub available: bool,
    pub code: [c_char; 32],
    pub path: [c_char; 1024],
    pub version: [c_char; 32],
    pub reason: [c_char; 512],
    pub hint: [c_char; 512],
    pub cached: bool,
    pub landlock_abi: c_int,
    pub seccomp: bool,
    pub cgroup: bool,
    pub read_protection: [c_char; 64],
    pub write_protection: [c_char; 64],
    pub network_isolation: [c_char; 64],
    pub syscall_filter: [c_char; 96],
    pub process_scoping: [c_char; 128],
    pub resource_limits: [c_char; 96],
    pub not_provided: [c_char; 1024],
    pub network_by_domain: [c_char; 160],
}

#[repr(C)]
pub struct confine_decision {
    pub size: usize,
    pub path: [c_char; 4096],
    pub access: confine_access,
    pub action: confine_action,
    pub layer: [c_char; 16],
    pub has_rule: bool,
    pub source: [c_char; 1024],
    pub index: c_int,
    pub line: c_int,
    pub column: c_int,
    pub pattern: [c_char; 4096],
    pub has_outranked: bool,
    pub outranked_source: [c_char; 1024],
    pub outranked_index: c_int,
    pub outranked_line: c_int,
    pub outranked_column: c_int,
    pub outranked_pattern: [c_char; 4096],
}

#[repr(C)]
pub struct confine_check_problem {
    pub size: usize,
    pub line: c_int,
    pub column: c_int,
    pub pointer: *const c_char,
    pub message: *const c_char,
}

#[repr(C)]
pub struct confine_event {
    pub size: usize,
    pub kind: [c_char; 40],
    pub path: [c_char; 4096],
    pub rule: [c_char; 4096],
    pub detail: [c_char; 4160],
}

#[repr(C)]
pub struct confine_injection {
    pub size: usize,
    pub placement: confine_inject_placement,
    pub where_: *const c_char,
    pub path: *const c_char,
    pub blake3: *const c_char,
    pub record: *const c_char,
    pub bytes: u64,
}

#[repr(C)]
pub struct confine_card_target {
    pub size: usize,
    pub path: *const c_char,
    pub scope: *const c_char,
}

#[repr(C)]
pub struct confine_card {
    pub size: usize,
    pub version: c_int,
    pub kind: *const c_char,
    pub title: *const c_char,
    pub argc: usize,
    pub argv: *const *const c_char,
    pub program: *const c_char,
    pub cwd: *const c_char,
    pub workspace: *const c_char,
    pub where_: *const c_char,
    pub guards: *const c_char,
    pub n_targets: usize,
    pub reason: *const c_char,
    pub n_env: usize,
    pub env: *const *const c_char,
    pub request_id: [c_char; 65],
    pub encoding: [c_char; 32],
    pub digest: [c_char; 65],
    pub reusable: bool,
    pub uses: *const c_char,
}

#[repr(C)]
pub struct confine_net_decision {
    pub size: usize,
    pub host: [c_char; 256],
    pub port: u16,
    pub action: confine_action,
    pub layer: [c_char; 16],
    pub has_rule: bool,
    pub source: [c_char; 1024],
    pub index: c_int,
    pub line: c_int,
    pub column: c_int,
    pub list: [c_char; 8],
    pub pattern: [c_char; 272],
}

#[repr(C)]
pub struct confine_net_event {
    pub size: usize,
    pub time_ms: i64,
    pub protocol: [c_char; 8],
    pub decision: *const confine_net_decision,
    pub outcome: [c_char; 24],
    pub address: [c_char; 64],
    pub detail: [c_char; 256],
    pub answer: [c_char; 16],
}

#[repr(C)]
pub struct confine_net_ask {
    pub size: usize,
    pub host: [c_char; 256],
    pub port: u16,
    pub protocol: [c_char; 8],
}

pub type confine_net_ask_fn = Option<
    unsafe extern "C" fn(ask: *const confine_net_ask, user: *mut c_void) -> confine_net_answer,
>;

#[repr(C)]
pub struct confine_agent_event {
    pub size: usize,
    pub time_ms: i64,
    pub request: [c_char; 24],
    pub key: [c_char; 64],
    pub host: [c_char; 272],
    pub outcome: [c_char; 16],
    pub detail: [c_char; 320],
}

#[repr(C)]
pub struct confine_secret_event {
    pub size: usize,
    pub time_ms: i64,
    pub name: [c_char; 256],
    pub host: [c_char; 256],
    pub port: u16,
    pub outcome: [c_char; 16],
    pub where_: [c_char; 64],
    pub encoding: [c_char; 16],
}

type E = *mut confine_error;
type Req = *mut confine_request;
type CReq = *const confine_request;
type Run = *mut confine_run;
type CRun = *const confine_run;

extern "C" {
    pub fn confine_version() -> *const confine_version_info;
    pub fn confine_free(p: *mut c_void);
    pub fn confine_strerror(code: c_int) -> *const c_char;
    pub fn confine_error_set(
        err: E,
        code: c_int,
        what: *const c_char,
        subject: *const c_char,
        reason_fmt: *const c_char,
        ...
    ) -> c_int;
    pub fn confine_error_set_os(
        err: E,
        code: c_int,
        what: *const c_char,
        subject: *const c_char,
        syscall: *const c_char,
        os_errno: c_int,
    ) -> c_int;
    pub fn confine_error_hint(err: E, fmt: *const c_char, ...);
    pub fn confine_display_escape(
        s: *const c_char,
        flags: c_uint,
        out: *mut *mut c_char,
        err: E,
    ) -> c_int;
    pub fn confine_display_escape_n(
        s: *const c_char,
        len: usize,
        flags: c_uint,
        out: *mut *mut c_char,
        err: E,
    ) -> c_int;

    pub fn confine_request_new(out: *mut Req, err: E) -> c_int;
    pub fn confine_request_free(req: Req);
    pub fn confine_request_set_argv(
        req: Req,
        argc: usize,
        argv: *const *const c_char,
        err: E,
    ) -> c_int;
    pub fn confine_request_set_workspace(req: Req, dir: *const c_char, err: E) -> c_int;
    pub fn confine_request_add_rule(
        req: Req,
        pattern: *const c_char,
        access: confine_access,
        action: confine_action,
        err: E,
    ) -> c_int;
    pub fn confine_rule_parse(
        text: *const c_char,
        pattern: *mut *mut c_char,
        access: *mut confine_access,
        err: E,
    ) -> c_int;
    pub fn confine_request_add_session_rules_file(req: Req, file: *const c_char, err: E) -> c_int;
    pub fn confine_request_set_network(req: Req, enabled: bool, err: E) -> c_int;
    pub fn confine_request_set_policy(req: Req, policy: confine_policy, err: E) -> c_int;
    pub fn confine_request_set_backend(req: Req, backend: confine_backend, err: E) -> c_int;
    pub fn confine_backend_parse(text: *const c_char, out: *mut confine_backend, err: E) -> c_int;
    pub fn confine_request_set_tmp_size(req: Req, bytes: u64, err: E) -> c_int;
    pub fn confine_request_set_helper(req: Req, path: *const c_char, err: E) -> c_int;
    pub fn confine_request_set_limits(req: Req, pids: u64, memory: u64, err: E) -> c_int;
    pub fn confine_request_set_timeout(req: Req, milliseconds: u64, err: E) -> c_int;
    pub fn confine_request_set_kill_grace(req: Req, milliseconds: u64, err: E) -> c_int;
    pub fn confine_request_set_tty(req: Req, tty: confine_tty, err: E) -> c_int;
    pub fn confine_request_set_stdio(
        req: Req,
        in_fd: c_int,
        out_fd: c_int,
        err_fd: c_int,
        err: E,
    ) -> c_int;
    pub fn confine_request_set_environment(req: Req, envp: *const *const c_char, err: E) -> c_int;
    pub fn confine_request_env_set(
        req: Req,
        name: *const c_char,
        value: *const c_char,
        err: E,
    ) -> c_int;
    pub fn confine_request_env_pass(req: Req, pattern: *const c_char, err: E) -> c_int;
    pub fn confine_request_env_unset(req: Req, pattern: *const c_char, err: E) -> c_int;
    pub fn confine_request_env_clear(req: Req, clear: bool, err: E) -> c_int;
    pub fn confine_request_add_injection(
        req: Req,
        placement: confine_inject_placement,
        where_: *const c_char,
        data: *const c_void,
        len: usize,
        err: E,
    ) -> c_int;
    pub fn confine_request_add_injection_n(
        req: Req,
        placement: confine_inject_placement,
        where_: *const c_char,
        where_len: usize,
        data: *const c_void,
        len: usize,
        err: E,
    ) -> c_int;
    pub fn confine_request_policy(req: CReq) -> confine_policy;
    pub fn confine_policy_parse(text: *const c_char, out: *mut confine_policy, err: E) -> c_int;

    pub fn confine_probe_bwrap(
        path_env: *const c_char,
        workspace: *const c_char,
        use_cache: bool,
        result: *mut confine_probe_result,
        err: E,
    ) -> c_int;
    pub fn confine_probe_landlock(result: *mut confine_probe_result, err: E) -> c_int;
    pub fn confine_probe_json(
        result: *const confine_probe_result,
        out: *mut *mut c_char,
        err: E,
    ) -> c_int;
    pub fn confine_probe_text(
        result: *const confine_probe_result,
        out: *mut *mut c_char,
        err: E,
    ) -> c_int;

    pub fn confine_run_prepare(req: CReq, out: *mut Run, err: E) -> c_int;
    pub fn confine_run_free(run: Run);
    pub fn confine_run_plan_text(run: CRun, json: bool, out: *mut *mut c_char, err: E) -> c_int;
    pub fn confine_request_plan_target(
        req: CReq,
        target: confine_target,
        facts: *const c_char,
        home: *const c_char,
        json: bool,
        out: *mut *mut c_char,
        err: E,
    ) -> c_int;
    pub fn confine_run_start(run: Run, err: E) -> c_int;
    pub fn confine_run_forward_signal(run: Run, sig: c_int) -> c_int;
    pub fn confine_run_restore_terminal(run: Run) -> c_int;
    pub fn confine_run_wait(run: Run, status: *mut c_int, err: E) -> c_int;

    pub fn confine_rules_load(req: CReq, out: *mut *mut confine_rules, err: E) -> c_int;
    pub fn confine_rules_free(r: *mut confine_rules);
    pub fn confine_rules_explain(
        r: *const confine_rules,
        path: *const c_char,
        access: confine_access,
        out: *mut confine_decision,
        err: E,
    ) -> c_int;
    pub fn confine_decision_json(
        d: *const confine_decision,
        out: *mut *mut c_char,
        err: E,
    ) -> c_int;

    pub fn confine_request_rule_file(
        req: CReq,
        kind: confine_rule_file,
        out: *mut *mut c_char,
        err: E,
    ) -> c_int;
    pub fn confine_rules_check(
        req: CReq,
        file: *const c_char,
        kind: confine_rule_file,
        out: *mut *mut confine_check,
        err: E,
    ) -> c_int;
    pub fn confine_check_free(c: *mut confine_check);
    pub fn confine_check_rule_count(c: *const confine_check) -> usize;
    pub fn confine_check_net_rule_count(c: *const confine_check) -> usize;
    pub fn confine_check_problem_count(c: *const confine_check) -> usize;
    pub fn confine_check_problem(c: *const confine_check, i: usize)
        -> *const confine_check_problem;

    pub fn confine_run_event_count(run: CRun) -> usize;
    pub fn confine_run_event(run: CRun, i: usize) -> *const confine_event;
    pub fn confine_run_notice_count(run: CRun) -> usize;
    pub fn confine_run_notice(run: CRun, i: usize) -> *const confine_event;
    pub fn confine_run_injection_count(run: CRun) -> usize;
    pub fn confine_run_injection(run: CRun, i: usize) -> *const confine_injection;
    pub fn confine_run_timed_out(run: CRun) -> bool;
    pub fn confine_run_killed_after_grace(run: CRun) -> bool;
    pub fn confine_run_backend(run: CRun) -> *const c_char;
    pub fn confine_run_fallback_note(run: CRun) -> *const c_char;
    pub fn confine_run_landlock_note(run: CRun) -> *const c_char;
    pub fn confine_run_explain_denial(
        run: CRun,
        path: *const c_char,
        out: *mut *mut c_char,
        err: E,
    ) -> c_int;
    pub fn confine_run_status_from_command(run: CRun) -> bool;

    pub fn confine_request_set_escalate(req: Req, escalate: bool, err: E) -> c_int;
    pub fn confine_request_set_reusable(req: Req, reusable: bool, err: E) -> c_int;
    pub fn confine_request_add_write_grant(req: Req, target: *const c_char, err: E) -> c_int;
    pub fn confine_request_set_grant_reason(req: Req, reason: *const c_char, err: E) -> c_int;
    pub fn confine_request_set_receipt(req: Req, digest: *const c_char, err: E) -> c_int;
    pub fn confine_request_set_id(req: Req, id: *const c_char, err: E) -> c_int;
    pub fn confine_card_new(req: CReq, out: *mut *mut confine_card, err: E) -> c_int;
    pub fn confine_card_free(card: *mut confine_card);
    pub fn confine_card_target(card: *const confine_card, i: usize) -> *const confine_card_target;
    pub fn confine_card_json(card: *const confine_card, out: *mut *mut c_char, err: E) -> c_int;

    pub fn confine_request_set_audit_file(req: Req, file: *const c_char, err: E) -> c_int;
    pub fn confine_request_set_report_file(req: Req, file: *const c_char, err: E) -> c_int;
    pub fn confine_request_plan_record_files(
        req: Req,
        audit: *const c_char,
        report: *const c_char,
        err: E,
    ) -> c_int;
    pub fn confine_request_set_denial_scan(req: Req, on: bool, err: E) -> c_int;
    pub fn confine_request_audit_error(req: CReq, err: E) -> c_int;
    pub fn confine_request_audit_refusal(
        req: CReq,
        status: c_int,
        why: *const confine_error,
        err: E,
    ) -> c_int;
    pub fn confine_report_json(
        req: CReq,
        run: CRun,
        status: c_int,
        why: *const confine_error,
        out: *mut *mut c_char,
        err: E,
    ) -> c_int;
    pub fn confine_request_write_report(
        req: CReq,
        run: CRun,
        status: c_int,
        why: *const confine_error,
        err: E,
    ) -> c_int;
    pub fn confine_run_denied_paths(run: CRun, n: *mut usize) -> *const *const c_char;
    pub fn confine_run_policy_digest(run: CRun) -> *const c_char;
    pub fn confine_run_id(run: CRun) -> *const c_char;

    pub fn confine_request_net_allow(req: Req, pattern: *const c_char, err: E) -> c_int;
    pub fn confine_request_net_deny(req: Req, pattern: *const c_char, err: E) -> c_int;
    pub fn confine_rules_explain_net(
        r: *const confine_rules,
        host_port: *const c_char,
        out: *mut confine_net_decision,
        err: E,
    ) -> c_int;
    pub fn confine_rules_net_mode(r: *const confine_rules) -> confine_net_mode;
    pub fn confine_net_decision_json(
        d: *const confine_net_decision,
        mode: confine_net_mode,
        out: *mut *mut c_char,
        err: E,
    ) -> c_int;
    pub fn confine_run_net_event_count(run: CRun) -> usize;
    pub fn confine_run_net_event(run: CRun, i: usize) -> *const confine_net_event;
    pub fn confine_run_net_events_dropped(run: CRun) -> usize;
    pub fn confine_run_net_hint(run: CRun, i: usize, out: *mut *mut c_char, err: E) -> c_int;
    pub fn confine_run_net_mode(run: CRun) -> confine_net_mode;
    pub fn confine_request_set_ssh_agent(req: Req, on: bool, err: E) -> c_int;
    pub fn confine_request_add_ssh_key(req: Req, key: *const c_char, err: E) -> c_int;
    pub fn confine_request_add_secret(req: Req, spec: *const c_char, err: E) -> c_int;
    pub fn confine_request_tls_inspect(req: Req, hosts: *const c_char, err: E) -> c_int;
    pub fn confine_run_agent_event_count(run: CRun) -> usize;
    pub fn confine_run_agent_event(run: CRun, i: usize) -> *const confine_agent_event;
    pub fn confine_run_agent_events_dropped(run: CRun) -> usize;
    pub fn confine_run_secret_event_count(run: CRun) -> usize;
    pub fn confine_run_secret_event(run: CRun, i: usize) -> *const confine_secret_event;
    pub fn confine_run_secret_events_dropped(run: CRun) -> usize;
    pub fn confine_request_set_net_ask(
        req: Req,
        f: confine_net_ask_fn,
        user: *mut c_void,
        err: E,
    ) -> c_int;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    // The library fills .size with the bytes it knows of the struct: v1's size, which must be
    // these declarations' size.
    #[test]
    fn structs_have_the_library_sizes() {
        unsafe {
            let v = &*confine_version();
            assert_eq!(v.abi, CONFINE_ABI);
            assert!(v.size >= size_of::<confine_version_info>());
            let mut p: confine_probe_result = std::mem::zeroed();
            p.size = size_of::<confine_probe_result>();
            let mut e = confine_error::default();
            assert_eq!(confine_probe_landlock(&mut p, &mut e), 0);
            assert_eq!(p.size, size_of::<confine_probe_result>());
        }
        assert_eq!(size_of::<confine_error>(), 2224);
        assert_eq!(size_of::<confine_decision>(), 14400);
        assert_eq!(size_of::<confine_net_decision>(), 1608);
        assert_eq!(size_of::<confine_event>(), 12400);
    }
}
