// The skills of the sep-2640-skills-* scenarios of the conformance suite (0.2.0-alpha): the skills
// extension (io.modelcontextprotocol/skills, SEP-2640). Each skill is a directory of files served as
// resources under skill://<skill-path>/; the server answers skills/list, skills/get and
// resources/directory/read. The first skill has subdirectories, which the directory scenario descends.

const CODE_REVIEW = `---
name: code-review
description: Review a change the way this team does
license: MIT
metadata:
  version: "1.2"
---

# Code review

Go through references/CHECKLIST.md item by item, then run scripts/lint.sh on the changed files.
`;

const REFUNDS = `---
name: refunds
description: Process a customer refund request per company policy
---

# Refunds

Check the order is under 30 days old, then follow examples/email.md to answer the customer.
`;

/** Registers the skills fixtures on `server`. */
export function registerSkillsFixtures(server) {
  server.skill('code-review', {
    files: {
      'SKILL.md': CODE_REVIEW,
      'references/CHECKLIST.md':
        '- Tests cover the change\n- Docs say what changed\n- No secrets in the diff\n',
      'scripts/lint.sh': '#!/bin/sh\nset -eu\nnpx eslint "$@"\n',
    },
  });
  // A skill under an organizational prefix: its name is the last segment of its path.
  server.skill('acme/billing/refunds', {
    files: {
      'SKILL.md': REFUNDS,
      'examples/email.md': 'Dear customer,\n\nYour refund is on its way.\n',
    },
  });
}
