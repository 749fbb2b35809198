"""Failures of the server shares API and of Manila (Nova's names and
messages).

Part of keel.exception (re-exported there, and named there on the wire):
import them from keel.exception."""
from keel.exception import *  # noqa: F401,F403 - the base classes


class ManilaConnectionFailed(NovaException):
    msg_fmt = "Connection to manila service failed: %(reason)s"


class ShareNotFound(NotFound):
    msg_fmt = "Share %(share_id)s could not be found."


class ShareStatusIncorect(NovaException):
    msg_fmt = ("Share %(share_id)s is in '%(status)s' instead of "
               "'available' status.")


class ShareMappingAlreadyExists(NotFound):
    msg_fmt = ("Share '%(share_id)s' or tag '%(tag)s' already associated "
               "to this server.")


class ShareProtocolNotSupported(NovaException):
    msg_fmt = "Share protocol %(share_proto)s is not supported."


class ShareMissingExportLocation(NovaException):
    msg_fmt = "Share %(share_id)s export location is missing."


class ShareAccessGrantError(NovaException):
    msg_fmt = ("Share access could not be granted to share id "
               "%(share_id)s.\nReason: %(reason)s.")


class ShareAccessRemovalError(NovaException):
    msg_fmt = ("Share access could not be removed from share id "
               "%(share_id)s.\nReason: %(reason)s.")


class ShareAccessNotFound(NotFound):
    msg_fmt = ("Share access from Manila could not be found for share id "
               "%(share_id)s.")


class ForbiddenSharesNotSupported(Forbidden):
    msg_fmt = "Feature not supported until computes have not been updated."


class ForbiddenSharesNotConfiguredCorrectly(Forbidden):
    msg_fmt = ("Feature not supported because either compute or instance "
               "are not configured correctly.")


home_in_keel_exception(globals())
