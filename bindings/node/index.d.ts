// SPDX-License-Identifier: MIT
// Types of confine-sandbox (index.js).  Written by hand and checked by `tsc --noEmit`
// (scripts/typecheck.js) against test/types-check.ts.
/// <reference types="node" />

import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { StdioOptions } from 'node:child_process';

export type Access = 'read' | 'write' | 'both';
/** "PATH[:read|write|both]" as `confine run --allow` takes it, or a path and its access. */
export type Rule = string | { path: string; access?: Access };

/** The options of `confine run` that explain and card take too. */
export interface RuleOptions {
	/** The workspace root (default: the current directory of confine, see cwd). */
	workspace?: string;
	allow?: Rule | Rule[];
	/** Enforced as deny until approved. */
	ask?: Rule | Rule[];
	deny?: Rule | Rule[];
	sessionRules?: string | string[];
	/** false: no network (own network namespace, loopback only). */
	network?: boolean;
	/** Network by domain: only these hosts, through confine's proxy. One host per element. */
	netAllow?: string | string[];
	netDeny?: string | string[];
	/** The confine binary (default: $CONFINE_BIN, then the absolute directories of PATH). */
	confine?: string;
	/** confine's own working directory. */
	cwd?: string;
	/** confine's environment, the base of the command's (default: process.env); confine
	 * removes secrets from it. */
	env?: NodeJS.ProcessEnv;
}

export interface RunOptions extends RuleOptions {
	noNetAsk?: boolean;
	/** 'required' (the default, always passed to confine) or 'off': no sandbox. */
	policy?: 'required' | 'off';
	backend?: 'auto' | 'bwrap' | 'landlock';
	/** Variables set inside (--env NAME=VALUE). */
	setEnv?: Record<string, string>;
	passEnv?: string | string[];
	unsetEnv?: string | string[];
	clearEnv?: boolean;
	/** Size cap of the private /tmp: bytes, or "512M". */
	tmpSize?: number | string;
	limits?: { pids?: number; memory?: number | string };
	/** Milliseconds; the whole sandbox is killed when it expires (status 137). */
	timeout?: number;
	/** A terminal of the command's own (default: when confine's stdio holds one). */
	tty?: boolean;
	/** Read-only file injection: NAME -> host file, its sealed copy's path in $NAME. */
	injectEnv?: Record<string, string>;
	/** Read-only file injection: target inside -> host file. */
	injectPath?: Record<string, string>;
	grantWrite?: { path: string; kind: 'file' | 'subtree' } | { path: string; kind: 'file' | 'subtree' }[];
	reason?: string;
	requestId?: string;
	receipt?: string;
	escalate?: boolean;
}

export interface SpawnOptions extends RunOptions {
	/** As child_process.spawn's (default 'pipe'). */
	stdio?: StdioOptions;
}

export interface ExecOptions extends RunOptions {
	/** Written to the command's stdin, which is then closed. */
	input?: string | Buffer;
	/** Of stdout and stderr (default 'utf8'; 'buffer': Buffers). */
	encoding?: BufferEncoding | 'buffer';
}

export interface ReportError {
	code: number;
	kind: string;
	what: string;
	subject: string;
	reason: string;
	hint: string;
}

export interface Guarantees {
	read_protection: string;
	write_protection: string;
	network_isolation: string;
	syscall_filter: string;
	process_scoping: string;
	resource_limits: string;
	network_by_domain?: string;
}

/** The post-run report (SPEC 7.3, `confine run --report`). */
export interface Report {
	version: string;
	exit_status: number;
	/** Whether the status is the command's or confine's (125, 126, 127 before it ran). */
	status_from: 'command' | 'confine';
	timed_out: boolean;
	error: ReportError | null;
	audit_error: unknown;
	notices: unknown[];
	events: { kind: string; path?: string; [k: string]: unknown }[];
	request_id: string;
	argv: string[];
	cwd: string;
	workspace: string;
	backend: string;
	guarantees: Guarantees;
	policy_digest: string | null;
	network: string;
	network_decisions: unknown[];
	injections: unknown[];
	escalated: boolean;
	receipt: unknown;
	grants: unknown[];
	/** Up to 5 paths of the command's "Permission denied"-like stderr lines, for display. */
	denied_paths: string[];
	asks: unknown[];
	[k: string]: unknown;
}

export interface Exit {
	/** confine's exit status: the command's own, 128+N when it died of signal N. */
	status: number | null;
	/** Set when confine itself died of a signal (SIGKILL: no report). */
	signal: NodeJS.Signals | null;
	report: Report | null;
}

export interface Result extends Exit {
	stdout: string | Buffer;
	stderr: string | Buffer;
}

export class ConfineError extends Error {
	/** CONFINE_E_* (negative), null when the CLI's message did not give it. */
	code: number | null;
	kind: string | null;
	what: string;
	subject: string;
	reason: string;
	hint: string;
	exitStatus: number | null;
	report: Report | null;
	stderr: string | Buffer | null;
	stdout?: string | Buffer;
	constructor(fields?: Partial<Omit<ConfineError, 'name' | 'message' | 'stack'>>);
	static fromReport(report: Report, extra?: object): ConfineError;
	static fromStderr(stderr: string, exitStatus: number | null): ConfineError;
}

export class ConfinedProcess extends EventEmitter {
	readonly confine: string;
	readonly spawnargs: string[];
	/** confine's pid. */
	readonly pid: number | undefined;
	readonly stdin: Writable | null;
	readonly stdout: Readable | null;
	readonly stderr: Readable | null;
	readonly stdio: [Writable | null, Readable | null, Readable | null, ...(Readable | Writable | null | undefined)[]];
	readonly killed: boolean;
	exitCode: number | null;
	signalCode: NodeJS.Signals | null;
	/** Set when 'exit' is emitted. */
	report: Report | null;
	/** Set when 'exit' is emitted and confine, not the command, decided the status. */
	error: ConfineError | null;
	/** Resolves at 'exit'; rejects on 'error' (confine could not be started). */
	readonly finished: Promise<Exit>;
	/** SIGTERM by default; confine forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT. */
	kill(signal?: NodeJS.Signals | number): boolean;
	ref(): void;
	unref(): void;

	on(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
	on(event: 'error', listener: (err: Error) => void): this;
	on(event: 'spawn', listener: () => void): this;
	once(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
	once(event: 'error', listener: (err: Error) => void): this;
	once(event: 'spawn', listener: () => void): this;
}

export function spawn(command: string, args?: readonly string[], options?: SpawnOptions): ConfinedProcess;
export function spawn(command: string, options: SpawnOptions): ConfinedProcess;
export function run(command: string, args?: readonly string[], options?: ExecOptions): Promise<Result>;
export function run(command: string, options: ExecOptions): Promise<Result>;

export interface RuleRef {
	source: string;
	index: number;
	line: number;
	pattern: string;
	[k: string]: unknown;
}

export interface PathDecision {
	path: string;
	access: 'read' | 'write';
	decision: 'allow' | 'ask' | 'deny';
	layer: 'override' | 'guard' | 'session' | 'workspace' | 'user' | 'fallback';
	rule: RuleRef | null;
}

export interface NetDecision {
	network: string;
	port: number;
	decision: 'allow' | 'ask' | 'deny';
	layer: string;
	mode: string;
	rule: RuleRef | null;
}

export interface ExplainOptions extends RuleOptions {
	access?: 'read' | 'write';
	/** HOST[:PORT] to explain as well. */
	net?: string | string[];
}

export function explain(paths: string | readonly string[], options?: ExplainOptions): Promise<(PathDecision | NetDecision)[]>;

export interface BackendProbe {
	backend: string;
	available: boolean;
	code: string;
	path: string | null;
	version: string | null;
	reason: string | null;
	hint: string | null;
	cached: boolean;
	landlock_abi: number;
	seccomp: boolean;
	cgroup: boolean;
	guarantees: Guarantees;
	not_provided: string[];
}

export interface ProbeResult {
	backends: BackendProbe[];
}

export function probe(options?: { noCache?: boolean; workspace?: string; confine?: string; cwd?: string; env?: NodeJS.ProcessEnv }): Promise<ProbeResult>;

export interface Card {
	version: number;
	kind: 'escalate' | 'grant-write' | string;
	title: string;
	argv: string[];
	program: string;
	cwd: string;
	workspace: string;
	where: string;
	guards: string;
	targets: unknown[];
	reason: string;
	env: unknown[];
	request_id: string;
	encoding: string;
	digest: string;
	reusable: boolean;
	uses: string;
	[k: string]: unknown;
}

export function card(command: string, args?: readonly string[], options?: RunOptions): Promise<Card>;
export function card(command: string, options: RunOptions): Promise<Card>;

export function version(options?: { confine?: string; env?: NodeJS.ProcessEnv }): Promise<string>;

export function findConfine(options?: { confine?: string }): string;
