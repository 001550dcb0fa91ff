"""Vendors' token shapes: the prefixes and lengths that make a string a key on sight.

A token of one of these shapes is a credential wherever it stands, with no secret-looking key
before it. Each shape is one regular expression, named as the privacy lint reports it, with
the lower-case literals (its `triggers`) without which it cannot match: a text is searched
only for the shapes whose triggers it holds (`shapes_in`), so forty vendors cost a text that
names none of them a few substring scans, not a pass of forty patterns. A prefix that a
vendor made unique (`glpat-`, `sk_live_`) needs only a few characters after it; a short,
common one (`hf_`, `npm_`) needs a length only a generated token has.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

__all__ = ["SHAPES", "TRIGGERS", "Shape", "shapes", "shapes_in"]


class Shape(NamedTuple):
    """One vendor's token shape."""

    name: str
    """What it is called, as the privacy lint reports it."""
    pattern: str
    """The regular expression a token of it matches."""
    triggers: tuple[str, ...]
    """Lower-case literals, one of which every token of it holds."""


SHAPES = (
    Shape("OpenAI-style API key", r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}", ("sk-",)),
    Shape(
        "GitHub token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Shape("AWS access key id", r"\b(?:(?:AKIA|ASIA)[0-9A-Z]{16})+", ("akia", "asia")),
    Shape(
        "Slack token",
        r"\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})",
        ("xox", "xapp-"),
    ),
    Shape("Google API key", r"\bAIza[0-9A-Za-z_-]{35}", ("aiza",)),
    Shape(
        "Google OAuth token",
        r"\b(?:ya29\.[A-Za-z0-9_-]{20,}|GOCSPX-[A-Za-z0-9_-]{20,})",
        ("ya29.", "gocspx-"),
    ),
    Shape("JWT", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", ("eyj",)),
    Shape(
        "GitLab token",
        r"\bgl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat|agent|wt)-[A-Za-z0-9_-]{10,}",
        (
            "glpat-",
            "gldt-",
            "glrt-",
            "glptt-",
            "glft-",
            "glimt-",
            "gloas-",
            "glcbt-",
            "glsoat-",
            "glagent-",
            "glwt-",
        ),
    ),
    Shape(
        "Stripe key",
        r"\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{16,})",
        ("_live_", "_test_", "whsec_"),
    ),
    Shape("SendGrid API key", r"\bSG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}", ("sg.",)),
    Shape("Hugging Face token", r"\b(?:hf|api_org)_[A-Za-z0-9]{20,}", ("hf_", "api_org_")),
    Shape("npm token", r"\bnpm_[A-Za-z0-9]{20,}", ("npm_",)),
    Shape("PyPI token", r"\bpypi-AgE[A-Za-z0-9_-]{20,}", ("pypi-",)),
    Shape(
        "webhook URL",
        r"\b(?:hooks\.slack\.com/(?:services|workflows|triggers)/|discord(?:app)?\.com/api/webhooks/)[A-Za-z0-9_/-]{8,}",
        ("hooks.slack.com", "/api/webhooks/"),
    ),
    Shape(
        "Shopify token",
        r"\bshp(?:at|ss|ca|pa)_[A-Fa-f0-9]{16,}",
        ("shpat_", "shpss_", "shpca_", "shppa_"),
    ),
    Shape("HashiCorp Vault token", r"\bhv[sbr]\.[A-Za-z0-9_-]{20,}", ("hvs.", "hvb.", "hvr.")),
    Shape("DigitalOcean token", r"\bdo[opr]_v1_[a-f0-9]{32,}", ("_v1_",)),
    Shape("Atlassian API token", r"\bATATT3[A-Za-z0-9_=-]{20,}", ("atatt3",)),
    Shape("Databricks token", r"\bdapi[a-f0-9]{32}", ("dapi",)),
    Shape("Postman API key", r"\bPMAK-[A-Za-z0-9-]{20,}", ("pmak-",)),
    Shape("Grafana token", r"\b(?:glc|glsa)_[A-Za-z0-9_=+/-]{20,}", ("glc_", "glsa_")),
    Shape("New Relic key", r"\bNR(?:AK|AA|II)-[A-Z0-9]{20,}", ("nrak-", "nraa-", "nrii-")),
    Shape("Doppler token", r"\bdp\.(?:st|ct|sa|scim|audit|pt)\.[A-Za-z0-9_.-]{20,}", ("dp.",)),
    Shape(
        "model provider key",
        r"\b(?:gsk|r8|lin_api|sbp|sntry[su])_[A-Za-z0-9]{20,}|\b(?:pplx|xai)-[A-Za-z0-9]{20,}",
        ("gsk_", "r8_", "lin_api_", "sbp_", "sntry", "pplx-", "xai-"),
    ),
    Shape("Mailgun key", r"\bkey-[0-9a-zA-Z]{32}", ("key-",)),
    Shape(
        "Azure client secret",
        r"(?<![\w~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,}",
        ("q~",),
    ),
    Shape(
        "package registry token",
        r"\b(?:dckr_pat_|rubygems_|oy2)[A-Za-z0-9_-]{20,}",
        ("dckr_pat_", "rubygems_", "oy2"),
    ),
    Shape(
        "SaaS API token",
        r"\b(?:ntn_|figd_|nvapi-|tgp_v1_|HRKU-|nfp_|sq0atp-|sq0csp-)[A-Za-z0-9_-]{20,}",
        ("ntn_", "figd_", "nvapi-", "tgp_v1_", "hrku-", "nfp_", "sq0atp-", "sq0csp-"),
    ),
    Shape("Notion token", r"\bsecret_[A-Za-z0-9]{32,}", ("secret_",)),
    Shape(
        "Terraform Cloud token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{40,}", (".atlasv1.",)
    ),
    Shape("Telegram bot token", r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}", (":aa",)),
    Shape("extended private key", r"\b[xt]prv[1-9A-HJ-NP-Za-km-z]{100,}", ("xprv", "tprv")),
    Shape("age secret key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{20,}", ("age-secret-key-",)),
)
"""Each token shape, in the order the lint reports them."""

TRIGGERS = tuple(trigger for shape in SHAPES for trigger in shape.triggers)
"""Every shape's triggers."""


def shapes_in(text: str) -> tuple[int, ...]:
    """The indices in `SHAPES` of the token shapes whose trigger `text` holds: most texts
    need none of their patterns, or one or two, not a pass of an alternation of all."""
    lowered = text.lower()
    return tuple(
        index
        for index, shape in enumerate(SHAPES)
        if any(trigger in lowered for trigger in shape.triggers)
    )


@functools.cache
def shapes(indices: tuple[int, ...]) -> re.Pattern[str]:
    """The token shapes at `indices` (from `shapes_in`), as one alternation."""
    return re.compile("|".join(SHAPES[index].pattern for index in indices))
