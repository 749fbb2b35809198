"""Policy defaults, one module per resource (as handlers/ and schemas/).

``list_rules()`` is the ``oslo.policy.policies`` entry point (namespace
``keel``), so ``oslopolicy-sample-generator --namespace keel`` documents
every rule with Nova's names.
"""
import itertools

from keel.policies import base


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
    ))
