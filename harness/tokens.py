"""Vendors' token shapes: the prefixes and lengths that make a string a key on sight.

A token of one of these shapes is a credential wherever it stands, with no secret-looking key
before it. Each shape is one regular expression, named as the privacy lint reports it, with
the lower-case literals (`TRIGGERS`) without which it cannot match: `harness.credentials`
screens a text for those before it runs any pattern. A prefix that a vendor made unique
(`glpat-`, `sk_live_`) needs only a few characters after it; a short, common one (`hf_`,
`npm_`) needs a length only a generated token has.
"""

from __future__ import annotations

__all__ = ["SHAPES", "TRIGGERS"]

SHAPES: tuple[tuple[str, str], ...] = (
    ("OpenAI-style API key", r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}"),
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("AWS access key id", r"\b(?:(?:AKIA|ASIA)[0-9A-Z]{16})+"),  # back-to-back keys too
    ("Slack token", r"\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})"),
    ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("Google OAuth token", r"\b(?:ya29\.[A-Za-z0-9_-]{20,}|GOCSPX-[A-Za-z0-9_-]{20,})"),
    ("JWT", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    (
        "GitLab token",
        r"\bgl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat|agent|wt)-[A-Za-z0-9_-]{10,}",
    ),
    ("Stripe key", r"\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{16,})"),
    ("SendGrid API key", r"\bSG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    ("Hugging Face token", r"\b(?:hf|api_org)_[A-Za-z0-9]{20,}"),
    ("npm token", r"\bnpm_[A-Za-z0-9]{20,}"),
    ("PyPI token", r"\bpypi-AgE[A-Za-z0-9_-]{20,}"),
    (
        "webhook URL",
        r"\b(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"|discord(?:app)?\.com/api/webhooks/)[A-Za-z0-9_/-]{8,}",
    ),
    ("Shopify token", r"\bshp(?:at|ss|ca|pa)_[A-Fa-f0-9]{16,}"),
    ("HashiCorp Vault token", r"\bhv[sbr]\.[A-Za-z0-9_-]{20,}"),
    ("DigitalOcean token", r"\bdo[opr]_v1_[a-f0-9]{32,}"),
    ("Atlassian API token", r"\bATATT3[A-Za-z0-9_=-]{20,}"),
    ("Databricks token", r"\bdapi[a-f0-9]{32}"),
    ("Postman API key", r"\bPMAK-[A-Za-z0-9-]{20,}"),
    ("Grafana token", r"\b(?:glc|glsa)_[A-Za-z0-9_=+/-]{20,}"),
    ("New Relic key", r"\bNR(?:AK|AA|II)-[A-Z0-9]{20,}"),
    ("Doppler token", r"\bdp\.(?:st|ct|sa|scim|audit|pt)\.[A-Za-z0-9_.-]{20,}"),
    (
        "model provider key",
        r"\b(?:gsk|r8|lin_api|sbp|sntry[su])_[A-Za-z0-9]{20,}|\b(?:pplx|xai)-[A-Za-z0-9]{20,}",
    ),
    ("Mailgun key", r"\bkey-[0-9a-zA-Z]{32}"),
    ("age secret key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{20,}"),
)
"""Each token shape with what it is called, in the order the lint reports them."""

TRIGGERS: tuple[str, ...] = (
    "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "akia", "asia", "xox", "xapp-",
    "aiza", "ya29.", "gocspx-", "eyj", "glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glimt-",
    "gloas-", "glcbt-", "glsoat-", "glagent-", "glwt-", "glc_", "glsa_", "_live_", "_test_",
    "whsec_", "sg.", "hf_", "api_org_", "npm_", "pypi-", "hooks.slack.com", "/api/webhooks/",
    "shpat_", "shpss_", "shpca_", "shppa_", "hvs.", "hvb.", "hvr.", "_v1_", "atatt3", "dapi",
    "pmak-", "nraa-", "nrak-", "nrii-", "dp.", "gsk_", "r8_", "lin_api_", "sbp_", "sntry",
    "pplx-", "xai-", "key-", "age-secret-key-",
)  # fmt: skip
"""Lower-case literals, one of which every shape holds."""
