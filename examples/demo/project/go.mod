module example.com/httpclient

go 1.22
