# A symlink planted in the workspace resolves inside the jail, never on the host.
import errno, os
for name, target in (("evil-shadow", "/etc/shadow"), ("evil-root", "/root/.bashrc")):
    if not os.path.lexists(name):
        os.symlink(target, name)
out = []
for name in ("evil-shadow", "evil-root"):
    try:
        open(name).read()
        out.append("ALLOWED")
    except OSError as e:
        out.append(errno.errorcode[e.errno])
print(" ".join(out))
