from gcmem.cli import main

main()
