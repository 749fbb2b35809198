"""The encrypted server password the guest posted to the metadata service,
kept as Nova keeps it: system_metadata ``password_0`` .. ``password_3``,
255 characters each."""
CHUNKS = 4
CHUNK_LENGTH = 255


def extract_password(instance):
    """The stored password (chunks joined in key order), or None."""
    sys_meta = instance.system_metadata or {}
    result = "".join(sys_meta[key] for key in sorted(sys_meta)
                     if key.startswith("password_"))
    return result or None


def password_chunks(password):
    """``{"password_N": chunk}`` for every chunk key (empty ones clear)."""
    password = password or ""
    if isinstance(password, bytes):
        password = password.decode("utf-8")
    meta = {}
    for i in range(CHUNKS):
        meta[f"password_{i}"] = password[:CHUNK_LENGTH]
        password = password[CHUNK_LENGTH:]
    return meta


def clear_password(ctx, instance):
    """Forget the stored password (the guest's password is unchanged)."""
    instance.system_metadata.update(password_chunks(None))
    instance.save()
