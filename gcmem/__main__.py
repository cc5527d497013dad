from gcmem.cli import app

app(prog_name="gcmem")
