/**
 * The default secret patterns: the credentials that most often leak into tool output and logs, in the
 * shapes secret scanners (gitleaks, GitHub secret scanning) know. A pattern's match is redacted whole,
 * or, when a group named `secret…` ends the match, only that group's text (so `api_key=…` keeps its
 * name).
 *
 * Every pattern runs in time linear in the text. V8's regular expressions backtrack: a pattern is
 * quadratic when attempts from many start positions each rescan the same stretch of text (a lookbehind
 * `(?<=token\s*)` rescans a whole run of whitespace at each of its characters). So, here:
 * 1. an attempt starts at a literal prefix, or at the start of a run (`(?<![\w-])`), never inside the
 *    run it scans; lookbehinds look back a few characters at most;
 * 2. a quantifier is bounded (`{0,16}`) unless it is the last thing a match needs, or it scans a run in
 *    which no other attempt can start (a PEM body holds no `-`, and every attempt starts with `-----`)
 *    and is a plain class (`[^-]*`: V8 backtracks through a million of those without a stack);
 * 3. lookaheads look a bounded distance (`(?=[^\s]{0,63}[0-9])`);
 * 4. a repeated group repeats a bounded number of times, and an unbounded run is written `x{20}x*`, not
 *    `x{20,}`: V8 keeps a backtracking entry per repetition of those, and some million of them overflow
 *    its stack.
 * `redact-time.test.ts` times adversarial texts up to 1 MiB against these rules.
 * @module
 */

/** Letters, digits, `_` and `-`: the characters of base64url tokens. */
const TOKEN = '[A-Za-z0-9_-]';

/** A value's first characters that say it is a placeholder, not a secret: `${X}`, `$X`, `$(…)`, `{{x}}`, `%X%`. */
const PLACEHOLDER = String.raw`\$[\w{(]|\{\{|%[A-Za-z_]`;

/** Characters of an unquoted value: not whitespace, quotes, separators of pairs, brackets or `\`. */
const BARE = String.raw`[^\s"'\x60&;,<>(){}\[\]\\]`;
/**
 * The same, without the separators `:` and `=` (a value after `name: ` ends where another `name:` could
 * start, so an attempt that fails never scans past the start of the next one) and `@` (`token:…@host`).
 */
const BARE_SPACED = String.raw`[^\s"'\x60&;,<>(){}\[\]\\:=@]`;

/**
 * Names of secrets (matched case-insensitively) as the end of a key: `password`, `DB_PASSWORD`,
 * `clientSecret`, `aws_secret_access_key`, `X-Api-Key`, `GITHUB_TOKEN`, `AccountKey`; not `secretary`,
 * `tokens`, `token_type` or `nextPageToken` (a cursor, which the model needs). Short names that are also
 * parts of words (`pass`, `auth`, `pwd`, `sig`) count only after a separator. Grouped by first letter:
 * V8 then tries one branch per position, not each name (5× faster on a long run of `a`).
 */
const SECRET_WORD =
  String.raw`(?:p(?:ass(?:w(?:or)?d|phrase|(?<![a-z0-9]pass))|wd(?<=[_.;-]pwd)|rivate[_-]?key)` +
  String.raw`|s(?:ecret|ig(?<=[?&;]sig)|(?:ession|torage|igning|hared[_-]?access)[_-]?key)` +
  String.raw`|token(?<!(?:page|next|continuation|sync|cursor|resume)[_.-]?token)` +
  String.raw`|a(?:(?:pi|ccess|ccount|pp)[_-]?key|uth(?<![a-z0-9]auth))` +
  String.raw`|(?:client|consumer|master|encryption)[_-]?key)` +
  String.raw`(?:[_.-]?(?:access[_.-]?)?key(?:[_.-]?base)?)?`;

/**
 * Keys whose string values are secrets whatever they look like (in `structuredContent`): a key that ends
 * with a secret's name. Matched case-insensitively against the whole key.
 */
export const SECRET_NAME = new RegExp(String.raw`(?:${SECRET_WORD}|^pwd|authorization|cookie)$`, 'i');

/**
 * Code, not a secret, at a value's start: a call (`getToken(`), a member path (`config.dbPassword`,
 * `Schema$1.optional`), or a variable handed on (`f(password=password)`, `{ token: Token$1 }`).
 * Bounded, like every lookahead here.
 */
const CODE =
  String.raw`[\w.$]{1,64}\(|[A-Za-z_$][\w$]{0,64}(?:\.[A-Za-z_$][\w$]{0,64}){1,8}(?![\w$])` +
  String.raw`|[A-Za-z_.]{1,64}[),\]}]|[\w.]{0,64}\$[\w.$]{0,64}[),\]}]|[A-Za-z_]\w{0,64}\$[0-9]{1,4}(?![\w$])`;

/**
 * A value after `name=` (env files, query strings, `--flag=`, connection strings): 3+ characters; not a
 * placeholder, a boolean or null, nor code.
 */
const EQUALS_VALUE =
  String.raw`=(?![=>])(?!${PLACEHOLDER}|(?:true|false|null|none|nil|undefined)(?!${BARE})|${CODE})` +
  String.raw`(?<secret>${BARE}{3}${BARE}*)`;

/** A value between `<name>` and `</name>` (up to 4 KiB). */
const ELEMENT_VALUE = String.raw`>(?!${PLACEHOLDER})(?<secret5>[^<>\r\n]{3,4096})(?=</)`;

/**
 * A value after `name: `, `"name": `, `name = `, `name => `: quoted (3+ characters, to the closing quote,
 * a backslash or the line's end), or bare with a letter and a digit in its first 64 characters and not
 * code (so prose like "the token: 1024 dimensions" and code like `token: schema$1.optional()` are left
 * alone).
 */
const SPACED_VALUE =
  String.raw`\\?["'\x60]?[ \t]{0,16}(?::=|=>|[:=])[ \t]{0,16}(?:` +
  String.raw`\\?"(?!${PLACEHOLDER})(?<secret2>[^"\\\r\n]{3}[^"\\\r\n]*)` +
  String.raw`|\\?'(?!${PLACEHOLDER})(?<secret3>[^'\\\r\n]{3}[^'\\\r\n]*)` +
  String.raw`|(?=${BARE_SPACED}{0,63}[0-9])(?=${BARE_SPACED}{0,63}[A-Za-z])(?!${PLACEHOLDER}|${CODE})(?<secret4>${BARE_SPACED}{4}${BARE_SPACED}*))`;

/** The default patterns, by name. Extend them with your own: `[...DEFAULT_SECRET_PATTERNS, /mine/g]`. */
export const SECRET_PATTERNS = Object.freeze({
  /**
   * PEM private keys (PKCS#1/#8, EC, DSA, OpenSSH, encrypted, PGP), header to footer, also inside JSON
   * strings (`\n` escapes); a key cut off before its footer is redacted up to where its base64 lines end.
   */
  privateKey: new RegExp(
    String.raw`-----BEGIN[ A-Z0-9]{0,32} PRIVATE KEY(?: BLOCK)?-----` +
      String.raw`(?:[^-]*(?:-[^-]+){0,16}-----END[ A-Z0-9]{0,32} PRIVATE KEY(?: BLOCK)?-----|(?:(?:\r?\n|\\r?\\n)?[A-Za-z0-9+/=]{1,4096}){0,512})`,
  ),
  /** AWS access key ids (long-term AKIA…, temporary ASIA…, and the other key-id prefixes). */
  awsAccessKeyId: /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/,
  /**
   * AWS secret access keys (40 characters of base64) after their name, in every common shape:
   * `aws_secret_access_key = …` (credentials file), `AWS_SECRET_ACCESS_KEY=…`, `"SecretAccessKey": "…"`,
   * `<SecretAccessKey>…</SecretAccessKey>` (STS), `secretAccessKey: '…'`.
   */
  awsSecretAccessKey:
    /(?:secret[_.-]?access[_.-]?key|aws[_.-]?secret[_.-]?key)\\?["'>]?[ \t]{0,16}(?::=|=>|[:=])?[ \t]{0,16}\\?["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/i,
  /** GitHub tokens: personal (classic and fine-grained), OAuth, user-to-server, server-to-server, refresh. */
  githubToken: /\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})/,
  /** GitLab tokens: personal, deploy, runner, trigger, CI job, OAuth, feed and other `gl…-` tokens. */
  gitlabToken: /\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent|ffct)-[A-Za-z0-9_.-]{20,255}/,
  /** Slack tokens (bot, user, app-level, refresh, configuration). */
  slackToken: /\bx(?:ox(?:e\.xox)?[abposre]|app)-[A-Za-z0-9-]{10,255}/,
  /** The secret path of Slack and Discord webhook URLs (the host is kept). */
  webhookUrl: new RegExp(
    String.raw`\bhooks\.slack\.com/(?:services|workflows|triggers)/(?<secret>[A-Za-z0-9_/+-]{20,255})` +
      String.raw`|\bdiscord(?:app)?\.com/api/webhooks/(?<secret2>[0-9]{5,30}/${TOKEN}{20,255})`,
  ),
  /** Stripe secret, restricted and webhook-signing keys (live and test). */
  stripeKey: /\b(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247}|whsec_[A-Za-z0-9]{24,255})/,
  /** Google API keys, OAuth client secrets and OAuth access tokens. */
  googleCredential:
    /\b(?:AIza[0-9A-Za-z_-]{35}|GOCSPX-[0-9A-Za-z_-]{28}|ya29\.[0-9A-Za-z_-]{20}[0-9A-Za-z_-]*)/,
  /** Keys of model providers: OpenAI (`sk-`, `sk-proj-`), Anthropic (`sk-ant-`), Hugging Face (`hf_`). */
  providerKey:
    /(?<![\w-])(?:sk-(?:ant-|proj-|svcacct-|admin-|(?=[A-Za-z0-9_-]{0,64}?[0-9]))[A-Za-z0-9_-]{20}[A-Za-z0-9_-]*|hf_[A-Za-z0-9]{30}[A-Za-z0-9]*)/,
  /** Package registry tokens: npm (`npm_`) and PyPI (`pypi-AgE…`). */
  registryToken: /\b(?:npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50}[A-Za-z0-9_-]*)/,
  /** Twilio API keys (`SK` + 32 hex) and SendGrid API keys (`SG.….…`). */
  messagingKey: /\b(?:SK[0-9a-fA-F]{32}\b|SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64})/,
  /** Azure AD (Entra ID) client secrets: three characters, a digit, `Q~`, then 31–34 more. */
  azureClientSecret: /(?<![\w~.-])[\w~.]{3}[0-9]Q~[\w~.-]{31,34}(?![\w~.-])/,
  /** JWTs: three base64url parts, the first two JSON objects (`eyJ`), header ≤ 8 KiB, claims ≤ 64 KiB. */
  jwt: new RegExp(String.raw`(?<!${TOKEN})eyJ${TOKEN}{4,8192}\.eyJ${TOKEN}{4,65536}\.${TOKEN}*`),
  /** The password in a URL's user info: `https://user:pass@host`, `postgres://app:pw@db:5432/app`. */
  urlPassword: new RegExp(
    String.raw`://[^\s/?#@:"'\x60<>]{0,256}:(?!${PLACEHOLDER})(?<secret>[^\s/?#@"'\x60<>]{1,256})(?=@)`,
  ),
  /**
   * The credential after `Bearer` or `Basic`: 12+ token characters with a digit or a lower-upper pair
   * (`dX`) among the first 64, which prose after these words ("Basic JavaScript") rarely has.
   */
  authorizationValue:
    /\b(?:Bearer|Basic)[ \t]{1,16}(?<secret>(?=[\w.~+/-]{0,63}(?:[0-9]|[a-z][A-Z]))[\w.~+/-]{12}[\w.~+/-]*=*)/,
  /** The value of `Authorization:` (whatever its scheme) and `Cookie:` / `Set-Cookie:` headers. */
  credentialHeader: new RegExp(
    String.raw`\b(?:Proxy-|proxy-)?[Aa]uthorization\\?["']?[ \t]{0,16}[:=][ \t]{0,16}\\?["']?` +
      String.raw`(?:[A-Za-z][A-Za-z0-9-]{0,31}[ \t]{1,16})?(?<secret>(?=[^\s"',;:]{0,63}(?:[0-9]|[a-z][A-Z]|[+/=]))[^\s"',;:]{6}[^\s"',;:]*)` +
      String.raw`|\b(?:[Ss]et-)?[Cc]ookie:[ \t]{0,16}(?<secret2>(?=[^\r\n]{0,256}=)[^\r\n]{1,8192})`,
  ),
  /** The value of `api_key=…`, `"password": "…"`, `CLIENT_SECRET: …`, `AccountKey=…;` and the like. */
  namedSecret: new RegExp(`${SECRET_WORD}(?:${EQUALS_VALUE}|${ELEMENT_VALUE}|${SPACED_VALUE})`, 'i'),
  /** The value of secret flags on a command line (`--password hunter2`) and of `curl -u user:pass`. */
  secretFlag: new RegExp(
    String.raw`(?<![\w-])--(?:[a-z0-9]{1,16}-){0,3}(?:password|passwd|pass|token|secret|api-?key|access-key|secret-key)` +
      String.raw`[ \t]{1,8}(?![-"'])(?=[^\s"'\x60]{0,63}[0-9])(?<secret>[^\s"'\x60]{3}[^\s"'\x60]*)` +
      String.raw`|\bcurl[ \t](?:[^\r\n]{0,512}?[ \t])?(?:-u|--user)[ \t]{1,8}["']?[^\s:"'\x60]{1,256}:(?<secret2>[^\s"'\x60]{1,256})`,
  ),
} satisfies Record<string, RegExp>);

/** The default patterns as a list. */
export const DEFAULT_SECRET_PATTERNS: readonly RegExp[] = Object.freeze(Object.values(SECRET_PATTERNS));

/**
 * For each default pattern, literals one of which every match contains (a regular expression of
 * literals, same case sensitivity): a text without any of them cannot match, and literals are screened
 * several times faster than the patterns themselves.
 */
export const SECRET_HINTS = new Map<RegExp, string>([
  [SECRET_PATTERNS.privateKey, '-----BEGIN'],
  [SECRET_PATTERNS.awsAccessKeyId, 'A3T|AKIA|ASIA|ABIA|ACCA'],
  [SECRET_PATTERNS.awsSecretAccessKey, 'access|secret'],
  [SECRET_PATTERNS.githubToken, 'gh[pousr]_|github_pat_'],
  [SECRET_PATTERNS.gitlabToken, 'gl[a-z]{1,5}-'],
  [SECRET_PATTERNS.slackToken, 'xox|xapp-'],
  [SECRET_PATTERNS.webhookUrl, 'hooks\\.slack|/webhooks/'],
  [SECRET_PATTERNS.stripeKey, 'k_live_|k_test_|k_prod_|whsec_'],
  [SECRET_PATTERNS.googleCredential, 'AIza|GOCSPX-|ya29\\.'],
  [SECRET_PATTERNS.providerKey, 'sk-|hf_'],
  [SECRET_PATTERNS.registryToken, 'npm_|pypi-'],
  [SECRET_PATTERNS.messagingKey, 'SK|SG\\.'],
  [SECRET_PATTERNS.azureClientSecret, 'Q~'],
  [SECRET_PATTERNS.jwt, 'eyJ'],
  [SECRET_PATTERNS.urlPassword, '://'],
  [SECRET_PATTERNS.authorizationValue, 'Bearer|Basic'],
  [SECRET_PATTERNS.credentialHeader, 'uthorization|ookie'],
  [SECRET_PATTERNS.namedSecret, 'pass|secret|token|key|auth|pwd|sig'],
  [SECRET_PATTERNS.secretFlag, '--|curl[ \\t]'],
]);
